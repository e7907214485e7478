package probe

import "net/netip"

// nic builds an up NIC with the given addresses.
func nic(name string, k Kind, addrs ...string) NIC {
	n := NIC{Name: name, Kind: k, MTU: 1500, Up: true}
	for _, a := range addrs {
		n.Addrs = append(n.Addrs, netip.MustParseAddr(a))
	}
	return n
}

// down returns n with its link down.
func down(n NIC) NIC { n.Up = false; return n }

// speed returns n with a link speed.
func speed(n NIC, mbps int) NIC { n.SpeedMbps = mbps; return n }

// node builds a node that is its own host.
func node(name, cluster string, nics ...NIC) Node {
	return Node{Name: name, Host: name, Cluster: cluster, NICs: nics}
}

// tableI returns the four nodes of GRIDHPC Table I: A1, A2 in cluster A with
// Ethernet and Infiniband, B1, B2 in cluster B with Ethernet and Myrinet.
func tableI() []Node {
	return []Node{
		node("A1", "A", nic("eth0", Ethernet, "192.16.64.10"), nic("ib0", Infiniband, "192.18.64.10")),
		node("A2", "A", nic("eth0", Ethernet, "192.16.64.11"), nic("ib0", Infiniband, "192.18.64.11")),
		node("B1", "B", nic("eth0", Ethernet, "192.16.34.20"), nic("myri0", Myrinet, "192.18.34.20")),
		node("B2", "B", nic("eth0", Ethernet, "192.16.34.21"), nic("myri0", Myrinet, "192.18.34.21")),
	}
}
