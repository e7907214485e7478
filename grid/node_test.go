package grid

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

// TestNodeOf pins the one description of a host as a probe node: local-grid
// nodes on their inventory addresses, named by the hints or eth0/ib0 with
// the loopback's MTU, whatever the hello says; SSH hosts by their hello.
func TestNodeOf(t *testing.T) {
	helloNICs := []probe.NIC{
		{Name: "enp1s0", Kind: probe.Ethernet, Up: true, MTU: 1500, Addrs: []netip.Addr{addr("192.168.1.5")}},
		{Name: "hsn0", Kind: probe.Ethernet, Up: true, MTU: 2044, Addrs: []netip.Addr{addr("10.9.1.5")}},
	}
	hello := deploy.Hello{Host: "machine-7", NICs: helloNICs}
	tests := map[string]struct {
		host  inventory.Host
		hello deploy.Hello
		want  probe.Node
	}{
		"local with both addresses": {
			host:  inventory.Host{Name: "alpha-1", Cluster: "alpha", EthernetAddr: addr("127.16.64.10"), FastAddr: addr("127.18.64.10")},
			hello: hello,
			want: probe.Node{Name: "alpha-1", Host: "alpha-1", Cluster: "alpha", NICs: []probe.NIC{
				{Name: "eth0", Kind: probe.Ethernet, Up: true, MTU: 65536, Addrs: []netip.Addr{addr("127.16.64.10")}},
				{Name: "ib0", Kind: probe.Infiniband, Up: true, MTU: 65536, Addrs: []netip.Addr{addr("127.18.64.10")}},
			}},
		},
		"local with hints, Ethernet only": {
			host: inventory.Host{Name: "beta-2", Cluster: "beta", Ethernet: "en0", Fast: "ibp0", EthernetAddr: addr("127.16.34.21")},
			want: probe.Node{Name: "beta-2", Host: "beta-2", Cluster: "beta", NICs: []probe.NIC{
				{Name: "en0", Kind: probe.Ethernet, Up: true, MTU: 65536, Addrs: []netip.Addr{addr("127.16.34.21")}},
			}},
		},
		"ssh host with a fast hint": {
			host:  inventory.Host{Name: "n1.lyon", Cluster: "sagittaire", Fast: "hsn0"},
			hello: hello,
			want: probe.Node{Name: "n1.lyon", Host: "machine-7", Cluster: "sagittaire",
				NICs: probe.ApplyHints(helloNICs, "", "hsn0")},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := NodeOf(tc.host, tc.hello)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NodeOf =\n%+v\nwant\n%+v", got, tc.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("NodeOf gives an invalid node: %v", err)
			}
		})
	}
	if got := NodeOf(tests["ssh host with a fast hint"].host, hello).NICs[1].Kind; got == probe.Ethernet {
		t.Errorf("the fast hint did not mark hsn0 (kind %s)", got)
	}
}

// TestEmbeddedGrid checks the embedded local grid as the model sees it:
// every host a local node with both NICs, refs in inventory order, and an
// Htable whose routes follow Algorithm 1 (same third octet: the fast
// network; across clusters: Ethernet).
func TestEmbeddedGrid(t *testing.T) {
	inv, err := inventory.Load("")
	if err != nil {
		t.Fatal(err)
	}
	nodes := LocalNodes(inv)
	refs := Refs(inv)
	if len(nodes) != 8 || len(refs) != 8 {
		t.Fatalf("%d nodes and %d refs, want 8 of each", len(nodes), len(refs))
	}
	for i, h := range inv.Hosts() {
		if want := (jobs.NodeRef{Name: h.Name, Cluster: h.Cluster, Site: h.Site}); refs[i] != want {
			t.Errorf("ref %d = %+v, want %+v", i, refs[i], want)
		}
		if nodes[i].Name != h.Name || len(nodes[i].NICs) != 2 {
			t.Errorf("node %d = %+v, want %s with two NICs", i, nodes[i], h.Name)
		}
	}
	h, err := Htable(inv)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b string
		want probe.Kind
	}{{"alpha-1", "alpha-2", probe.Infiniband}, {"alpha-1", "beta-1", probe.Ethernet}} {
		r, err := h.Route(tc.a, tc.b)
		if err != nil || r.Network != tc.want {
			t.Errorf("route %s-%s: %v %v, want %s", tc.a, tc.b, r.Network, err, tc.want)
		}
	}
	if _, err := Htable(nil); err != ErrNoInventory {
		t.Errorf("Htable(nil) error %v, want ErrNoInventory", err)
	}
	if Refs(nil) != nil {
		t.Error("Refs(nil) is not nil")
	}
	free := RefsOf(inv, []probe.Node{nodes[5], nodes[0], {Name: "gamma-1", Cluster: "gamma"}})
	want := []jobs.NodeRef{refs[5], refs[0], {Name: "gamma-1", Cluster: "gamma"}}
	if !reflect.DeepEqual(free, want) {
		t.Errorf("RefsOf = %+v, want %+v", free, want)
	}
}
