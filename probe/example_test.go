package probe_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/gridtui/gridtui/probe"
)

// tableINodes are the computing nodes of GRIDHPC Table I.
func tableINodes() []probe.Node {
	mk := func(name, cluster string, fast probe.Kind, eth, fastAddr string) probe.Node {
		return probe.Node{Name: name, Host: name, Cluster: cluster, NICs: []probe.NIC{
			{Name: "eth0", Kind: probe.Ethernet, Addrs: []netip.Addr{netip.MustParseAddr(eth)}, MTU: 1500, Up: true},
			{Name: "fast0", Kind: fast, Addrs: []netip.Addr{netip.MustParseAddr(fastAddr)}, MTU: 2044, Up: true},
		}}
	}
	return []probe.Node{
		mk("A1", "A", probe.Infiniband, "192.16.64.10", "192.18.64.10"),
		mk("A2", "A", probe.Infiniband, "192.16.64.11", "192.18.64.11"),
		mk("B1", "B", probe.Myrinet, "192.16.34.20", "192.18.34.20"),
		mk("B2", "B", probe.Myrinet, "192.16.34.21", "192.18.34.21"),
	}
}

// BestNetwork is Algorithm 1 of GRIDHPC on the paper's scenario: A1 ↔ A2
// share cluster A and its Infiniband, A2 ↔ B1 are in different clusters and
// use Ethernet, B1 ↔ B2 share cluster B and its Myrinet.
func ExampleBestNetwork() {
	n := tableINodes()
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {2, 3}} {
		r, err := probe.BestNetwork(n[pair[0]], n[pair[1]], probe.Locality{})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Reason)
	}
	// Output:
	// A1 ↔ A2: same cluster (third octet 64 = 64) → infiniband 192.18.64.10 ↔ 192.18.64.11
	// A2 ↔ B1: different clusters (third octet 64 ≠ 34) → ethernet 192.16.64.11 ↔ 192.16.34.20
	// B1 ↔ B2: same cluster (third octet 34 = 34) → myrinet 192.18.34.20 ↔ 192.18.34.21
}

// Other locality rules: with RulePrefix on /16, nodes whose third octets
// differ still share a cluster.
func ExampleBestNetwork_prefix() {
	n := tableINodes()
	r, _ := probe.BestNetwork(n[1], n[2], probe.Locality{Rule: probe.RulePrefix, PrefixBits: 16})
	fmt.Println(r.Reason)
	// Output:
	// A2 ↔ B1: same cluster (subnet 192.16.0.0/16), no fast network in common → ethernet 192.16.64.11 ↔ 192.16.34.20
}

// The Htable holds each node's Ethernet addresses and fast addresses (the two
// lines of Table I) and answers routes by node name.
func ExampleNewHtable() {
	h, err := probe.NewHtable(tableINodes(), probe.Locality{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(h)
	r, _ := h.Route("A1", "A2")
	fmt.Println(r.Network, r.AAddr, r.BAddr)
	// Output:
	// NODE  CLUSTER  ETHERNET      FAST
	// A1    A        192.16.64.10  infiniband 192.18.64.10
	// A2    A        192.16.64.11  infiniband 192.18.64.11
	// B1    B        192.16.34.20  myrinet 192.18.34.20
	// B2    B        192.16.34.21  myrinet 192.18.34.21
	// infiniband 192.18.64.10 192.18.64.11
}

// Candidates lists the best route first, then the fallbacks pre-flight tries.
func ExampleHtable_Candidates() {
	h, _ := probe.NewHtable(tableINodes(), probe.Locality{})
	for _, r := range h.Candidates("B1", "B2") {
		fmt.Println(r.Network, r.AAddr, "↔", r.BAddr)
	}
	// Output:
	// myrinet 192.18.34.20 ↔ 192.18.34.21
	// ethernet 192.16.34.20 ↔ 192.16.34.21
}

// Preflight dials the candidates in order and falls back, with a warning,
// when the best network does not answer. Here the dial function pretends the
// Infiniband fabric is down; a worker passes a real dialer such as DialTCP.
func ExamplePreflight() {
	h, _ := probe.NewHtable(tableINodes(), probe.Locality{})
	ibDown := func(ctx context.Context, r probe.Route) error {
		if r.Network == probe.Infiniband {
			return errors.New("no route to host")
		}
		return nil
	}
	r, warnings, err := probe.Preflight(context.Background(), h.Candidates("A1", "A2"), ibDown, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(warnings[0])
	fmt.Println("using", r.Network)
	// Output:
	// A1 ↔ A2: infiniband 192.18.64.10 ↔ 192.18.64.11 unreachable (no route to host), falling back to ethernet 192.16.64.10 ↔ 192.16.64.11
	// using ethernet
}
