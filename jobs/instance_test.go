package jobs

import (
	"math"
	"strings"
	"testing"
)

// TestGainPerInstance: Table IV and t1 of an application other than the
// obstacle problem group runs by the application and all its parameters: a
// single-node Poisson run of blocks=auto n=32 is t1 of its 4-node run, not
// of one with n = 48, nor is an obstacle run of the same n and ε (before,
// every application's runs were dropped: only obstacle runs had a gain).
func TestGainPerInstance(t *testing.T) {
	poisson := func(n string, nodes int, wall float64) RunRecord {
		return RunRecord{ID: n + "-" + string(rune('0'+nodes)), Outcome: OutcomeOK, WallSeconds: wall,
			Job: RunConfig{App: "poisson", N: 32, Eps: 1e-8, Scheme: Synchronous, Nodes: nodes, Cores: nodes, Grid: "alpha",
				Inventory: InventoryEmbedded, Params: map[string]string{"n": n, "eps": "1e-8", "blocks": "auto"}}}
	}
	recs := []RunRecord{
		poisson("32", 1, 8), poisson("32", 4, 2),
		poisson("48", 1, 1), // another instance, faster: must not be t1
		{ID: "obst", Outcome: OutcomeOK, WallSeconds: 0.5, Job: RunConfig{App: "obstacle", N: 32, Eps: 1e-8,
			Scheme: Synchronous, Nodes: 1, Cores: 1, Grid: "alpha", Inventory: InventoryEmbedded}},
	}
	recs[2].Job.N = 48
	in := recs[1].Job.Instance()
	tab := BuildTableOf(GainTable, recs, in)
	if len(tab.Rows) != 2 || len(tab.Columns) != 1 {
		t.Fatalf("table %+v, want the two runs of the instance", tab)
	}
	if g := tab.Rows[1].Cells[0]; math.Abs(g-4) > 1e-9 {
		t.Errorf("gain of the 4-node run %g, want t1/ts = 8/2 = 4", g)
	}
	res := &Results{Records: recs}
	ref, ok := res.SingleNodeReferenceOf(in, InventoryEmbedded, "alpha")
	if !ok || ref.ID != recs[0].ID {
		t.Errorf("t1 reference %s, %v; want %s", ref.ID, ok, recs[0].ID)
	}
	if title := tab.Title(); !strings.Contains(title, "poisson blocks=auto eps=1e-8 n=32") {
		t.Errorf("title %q does not name the instance", title)
	}
	if ref, ok := res.SingleNodeReference(32, 1e-8, InventoryEmbedded, "alpha"); !ok || ref.ID != "obst" {
		t.Errorf("the obstacle problem's t1 %s, %v; want obst", ref.ID, ok)
	}
}
