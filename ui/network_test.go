package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/ui/page/network"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/probe"
)

func TestNetworkView(t *testing.T) {
	cases := []struct {
		name  string
		inv   *inventory.Inventory
		err   error
		picks []string
	}{
		{name: "htable", inv: inventory.Embedded()},
		{name: "job_pairs", inv: inventory.Embedded(), picks: []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}},
		{name: "empty", inv: &inventory.Inventory{Source: "sites.toml"}},
		{name: "error", err: errors.New(`probe: node alpha-1 listed twice: bad node`)},
		{name: "1024", inv: bigInventory(1024), picks: []string{"c0-1", "c0-2", "c1-1", "c9-64"}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := network.New(c)
				if tc.err != nil {
					v.SetHtable(nil, tc.err)
				} else {
					h, err := grid.Htable(tc.inv)
					if err != nil {
						t.Fatal(err)
					}
					v.SetHtable(h, nil)
					comp := NewComposeView(c, tc.inv)
					if tc.picks != nil {
						comp.ClearNodes()
					}
					for _, p := range tc.picks {
						comp.Pick(true, p)
					}
					comp.SetHtable(h)
					v.SetPairs(comp.Pairs())
				}
				out := v.View()
				checkSize(t, c, out)
				requireGolden(t, out)
			})
		}
	}
}

// TestJobPairsNetworks checks what the Network view exists for: the pairs
// of a job inside a cluster go over the fast network, across clusters over
// Ethernet (Algorithm 1 of GRIDHPC, Table I).
func TestJobPairsNetworks(t *testing.T) {
	inv := inventory.Embedded()
	h, err := grid.Htable(inv)
	if err != nil {
		t.Fatal(err)
	}
	c := testCommon(80, 24)
	comp := NewComposeView(c, inv)
	comp.ClearNodes()
	for _, p := range []string{"alpha-1", "alpha-2", "beta-1", "beta-2"} {
		comp.Pick(true, p)
	}
	comp.SetHtable(h)
	want := map[string]probe.Kind{
		"alpha-1↔alpha-2": probe.Infiniband,
		"alpha-2↔beta-1":  probe.Ethernet,
		"beta-1↔beta-2":   probe.Infiniband,
	}
	pairs := comp.Pairs()
	if len(pairs) != len(want) {
		t.Fatalf("got %d pairs, want %d", len(pairs), len(want))
	}
	for _, p := range pairs {
		if p.Err != nil {
			t.Fatalf("%s ↔ %s: %v", p.A, p.B, p.Err)
		}
		if k := want[p.A+"↔"+p.B]; p.Route.Network != k {
			t.Errorf("%s ↔ %s over %s, want %s", p.A, p.B, p.Route.Network, k)
		}
	}
	v := network.New(c)
	v.SetHtable(h, nil)
	v.SetPairs(pairs)
	if s := v.Summary(); !strings.Contains(s, "2 over infiniband") || !strings.Contains(s, "1 over ethernet") {
		t.Errorf("summary %q does not count the pairs per network", s)
	}
}
