package probe

import (
	"fmt"
	"strings"
	"testing"
)

// gridNodes returns n nodes in clusters of 16 (third octet = cluster index),
// each with Ethernet and Infiniband, like a Grid'5000 site.
func gridNodes(n int) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		c, h := i/16, i%16+1
		nodes[i] = node(fmt.Sprintf("n%d", i), fmt.Sprintf("c%d", c),
			nic("lo", Loopback, "127.0.0.1", "::1"),
			speed(nic("eth0", Ethernet, fmt.Sprintf("10.16.%d.%d", c, h), fmt.Sprintf("2001:db8:%x::%x", c, h)), 10000),
			speed(nic("ib0", Infiniband, fmt.Sprintf("10.18.%d.%d", c, h)), 100000))
	}
	return nodes
}

func BenchmarkBestNetwork(b *testing.B) {
	n := tableI()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BestNetwork(n[0], n[1], Locality{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHtableRoute routes the same pair as BenchmarkBestNetwork through
// an Htable, whose nodes were prepared once.
func BenchmarkHtableRoute(b *testing.B) {
	h, err := NewHtable(tableI(), Locality{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Route("A1", "A2"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSameClusterOctet is the public third-octet test: it prepares both
// nodes and formats the phrase on every call.
func BenchmarkSameClusterOctet(b *testing.B) {
	n := tableI()
	b.ReportAllocs()
	for b.Loop() {
		if same, _, _ := (Locality{}).SameCluster(n[0], n[2]); same {
			b.Fatal("A1 and B1 in one cluster")
		}
	}
}

// BenchmarkLocalityDecideOctet is the third-octet test as the Htable runs
// it, on views prepared once per node.
func BenchmarkLocalityDecideOctet(b *testing.B) {
	n := tableI()
	va, vb := newView(&n[0]), newView(&n[2])
	loc, _ := Locality{}.normalize()
	b.ReportAllocs()
	for b.Loop() {
		if loc.decide(&va, &vb).same {
			b.Fatal("A1 and B1 in one cluster")
		}
	}
}

// BenchmarkSameClusterOctetPaperBaseline is the baseline: Algorithm 1 as
// printed, inet_ntop to a string, cut out the third group, strcmp.
func BenchmarkSameClusterOctetPaperBaseline(b *testing.B) {
	n := tableI()
	third := func(s string) string { return strings.Split(s, ".")[2] }
	b.ReportAllocs()
	for b.Loop() {
		l, r := n[0].NICs[0].Addrs[0].String(), n[2].NICs[0].Addrs[0].String()
		if third(l) == third(r) {
			b.Fatal("A1 and B1 in one cluster")
		}
	}
}

// BenchmarkHtableAllPairs builds the Htable of a 64-node job and routes every
// ordered pair, what the console does to show the route matrix.
func BenchmarkHtableAllPairs64(b *testing.B) {
	nodes := gridNodes(64)
	b.ReportAllocs()
	for b.Loop() {
		h, err := NewHtable(nodes, Locality{})
		if err != nil {
			b.Fatal(err)
		}
		for _, x := range nodes {
			for _, y := range nodes {
				if _, err := h.Route(x.Name, y.Name); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func BenchmarkLocal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Local(); err != nil {
			b.Fatal(err)
		}
	}
}
