//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/probe"
)

// probeHost runs the deployed gridtui's `probe --json` on h over SSH, with
// the inventory's interface hints, and returns the NICs it reports.
func probeHost(t *testing.T, g *Grid, h *Host) []probe.NIC {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := g.SSH(ctx, h.Name, ".gridtui/gridtui probe --json --ethernet eth0 --fast ib0")
	if err != nil {
		t.Fatal(err)
	}
	var nics []probe.NIC
	if err := json.Unmarshal([]byte(out), &nics); err != nil {
		t.Fatalf("%s: probe --json: %v\n%s", h.Name, err, out)
	}
	return nics
}

// nicNamed returns the NIC called name.
func nicNamed(nics []probe.NIC, name string) (probe.NIC, bool) {
	i := slices.IndexFunc(nics, func(n probe.NIC) bool { return n.Name == name })
	if i < 0 {
		return probe.NIC{}, false
	}
	return nics[i], true
}

// TestProbeHtable deploys, probes every host over SSH with the deployed
// binary, and checks that each host shows eth0 (Ethernet) and ib0
// (Infiniband) with its addresses, and that the Htable built from those
// probes routes pairs as Algorithm 1 says: Infiniband (ib0 addresses) inside
// a cluster, Ethernet (eth0 addresses) between clusters — the third octet of
// eth0, 64 or 34, telling the clusters apart. Then with one host's ib0 down,
// its pairs inside the cluster fall back to Ethernet.
func TestProbeHtable(t *testing.T) {
	g := newGridT(t, Config{})
	if r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy"); r.code != 0 {
		t.Fatalf("deploy: exit %d:\n%s", r.code, r.out)
	}
	nodes := make([]probe.Node, 0, len(g.Hosts))
	for _, h := range g.Hosts {
		nics := probeHost(t, g, h)
		for _, c := range []struct {
			nic  string
			kind probe.Kind
			addr netip.Addr
		}{{"eth0", probe.Ethernet, h.Ethernet}, {"ib0", probe.Infiniband, h.Fast}} {
			n, ok := nicNamed(nics, c.nic)
			if !ok || n.Kind != c.kind || !n.Up || !slices.Contains(n.Addrs, c.addr) {
				t.Errorf("%s: want %s %s up with %s, probe says %+v (found %v)", h.Name, c.nic, c.kind, c.addr, n, ok)
			}
		}
		nodes = append(nodes, probe.Node{Name: h.Name, Host: h.Name, Cluster: h.Cluster, NICs: nics})
	}
	ht, err := probe.NewHtable(nodes, probe.Locality{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Htable from the hosts' probes:\n%s", ht)
	checkRows(t, g, ht)
	checkRoutes(t, g, ht, "")

	ctx := context.Background()
	if err := g.LinkDown(ctx, "a2", "ib0"); err != nil {
		t.Fatal(err)
	}
	nics := probeHost(t, g, g.Host("a2"))
	if n, _ := nicNamed(nics, "ib0"); n.Up {
		t.Errorf("a2: ib0 is down, probe says up: %+v", n)
	}
	nodes[1] = probe.Node{Name: "a2", Host: "a2", Cluster: "alpha", NICs: nics}
	if ht, err = probe.NewHtable(nodes, probe.Locality{}); err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, g, ht, "a2")
}

// checkRows checks each Htable row: one Ethernet address (eth0's) and one
// Infiniband address (ib0's), as Table I of GRIDHPC lays them out.
func checkRows(t *testing.T, g *Grid, ht *probe.Htable) {
	t.Helper()
	for _, row := range ht.Rows() {
		h := g.Host(row.Node)
		if !slices.Equal(row.Ethernet, []netip.Addr{h.Ethernet}) {
			t.Errorf("%s: Htable Ethernet %v, want [%s]", row.Node, row.Ethernet, h.Ethernet)
		}
		if len(row.Fast) != 1 || row.Fast[0] != (probe.FastAddr{Kind: probe.Infiniband, Addr: h.Fast}) {
			t.Errorf("%s: Htable fast %v, want infiniband %s", row.Node, row.Fast, h.Fast)
		}
	}
}

// checkRoutes checks every pair's route; pairs involving noFast (a host
// whose ib0 is down) must use Ethernet.
func checkRoutes(t *testing.T, g *Grid, ht *probe.Htable, noFast string) {
	t.Helper()
	for i, a := range g.Hosts {
		for _, b := range g.Hosts[i+1:] {
			r, err := ht.Route(a.Name, b.Name)
			if err != nil {
				t.Errorf("%s ↔ %s: %v", a.Name, b.Name, err)
				continue
			}
			kind, aa, ba := probe.Ethernet, a.Ethernet, b.Ethernet
			if a.Cluster == b.Cluster && a.Name != noFast && b.Name != noFast {
				kind, aa, ba = probe.Infiniband, a.Fast, b.Fast
			}
			if r.Network != kind || r.AAddr != aa.String() || r.BAddr != ba.String() {
				t.Errorf("%s ↔ %s: route %s %s ↔ %s, want %s %s ↔ %s (%s)", a.Name, b.Name,
					r.Network, r.AAddr, r.BAddr, kind, aa, ba, r.Reason)
			}
			if a.Cluster != b.Cluster && !strings.Contains(r.Reason, "64") {
				t.Errorf("%s ↔ %s: reason does not cite the third octets: %s", a.Name, b.Name, r.Reason)
			}
		}
	}
}
