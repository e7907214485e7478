package grid

import (
	"net/netip"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// Names and MTU of a local-grid node's simulated NICs when its cluster gives
// no interface hints. The addresses live on the loopback interface, whose
// MTU Linux sets to 65536; each simulated host has its own eth0 and ib0, as
// the hosts of a real cluster do.
const (
	LocalEthernetName = "eth0"
	LocalFastName     = "ib0"
	LocalMTU          = 65536
)

// isLocal reports whether h is a local-launcher node of the embedded local
// grid: the inventory gives its addresses, no hello is needed to know them.
func isLocal(h inventory.Host) bool { return h.EthernetAddr.IsValid() }

// NodeOf describes host h as the Htable sees it. A local-grid node is its
// own simulated host with an Ethernet NIC and, when the inventory gives one,
// an Infiniband NIC on its inventory addresses, named by the cluster's
// interface hints (eth0 and ib0 without them); hello is not read. Any other
// host is described by the NICs its worker's hello reported, their kinds
// corrected by the inventory's hints (probe.ApplyHints), and by the machine
// the hello names, so that nodes on one machine share a Unix socket.
func NodeOf(h inventory.Host, hello deploy.Hello) probe.Node {
	n := probe.Node{Name: h.Name, Host: hello.Host, Cluster: h.Cluster}
	if !isLocal(h) {
		n.NICs = probe.ApplyHints(hello.NICs, h.Ethernet, h.Fast)
		return n
	}
	n.Host = h.Name
	n.NICs = append(n.NICs, localNIC(orDefault(h.Ethernet, LocalEthernetName), probe.Ethernet, h.EthernetAddr))
	if h.FastAddr.IsValid() {
		n.NICs = append(n.NICs, localNIC(orDefault(h.Fast, LocalFastName), probe.Infiniband, h.FastAddr))
	}
	return n
}

func localNIC(name string, kind probe.Kind, a netip.Addr) probe.NIC {
	return probe.NIC{Name: name, Kind: kind, Up: true, MTU: LocalMTU, Addrs: []netip.Addr{a}}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// LocalNodes returns the inventory's local-grid nodes (NodeOf), in inventory
// order. SSH hosts are known only once their workers said hello: see Probe.
func LocalNodes(inv *inventory.Inventory) []probe.Node {
	var nodes []probe.Node
	for _, h := range inv.Hosts() {
		if isLocal(h) {
			nodes = append(nodes, NodeOf(h, deploy.Hello{}))
		}
	}
	return nodes
}

// Refs returns every host of the inventory as a job's node selection sees
// it (name, cluster, site), in inventory order; nil for a nil inventory.
func Refs(inv *inventory.Inventory) []jobs.NodeRef {
	if inv == nil {
		return nil
	}
	var refs []jobs.NodeRef
	for _, h := range inv.Hosts() {
		refs = append(refs, jobs.NodeRef{Name: h.Name, Cluster: h.Cluster, Site: h.Site})
	}
	return refs
}

// RefsOf returns nodes (those with a live worker, say) as a job's node
// selection sees them, in their order, each with its site in inv (none for
// a node inv lacks).
func RefsOf(inv *inventory.Inventory, nodes []probe.Node) []jobs.NodeRef {
	site := map[string]string{}
	for _, r := range Refs(inv) {
		site[r.Name] = r.Site
	}
	refs := make([]jobs.NodeRef, len(nodes))
	for i, n := range nodes {
		refs[i] = jobs.NodeRef{Name: n.Name, Cluster: n.Cluster, Site: site[n.Name]}
	}
	return refs
}
