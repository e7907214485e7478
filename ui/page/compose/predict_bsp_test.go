package compose

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/bsp" // a BSP program's job (its prediction by W + h·g + l)
	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// bspStore is a results store with one traced run of the BSP program
// ./ring 100 on nodes nodes of the embedded grid: 100 supersteps, W = 1 s,
// h = 100 000 bytes in all, 0.3 s outside the supersteps (1.42 s of wall
// time, the busiest process 1.12 s in supersteps).
func bspStore(t *testing.T, nodes int) *jobs.Results {
	t.Helper()
	spec := jobs.Spec{App: "bsp", Params: map[string]string{"program": "./ring", "args": "100"}}
	_, v, err := spec.WithDefaults().Application()
	if err != nil {
		t.Fatal(err)
	}
	rec := jobs.RunRecord{ID: "20261128-090000-bsp1", Outcome: jobs.OutcomeOK, WallSeconds: 1.42,
		Job:        jobs.RunConfig{App: "bsp", Params: v.Encode(), Scheme: jobs.Synchronous, Nodes: nodes, Inventory: jobs.InventoryEmbedded},
		Supersteps: []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.010, H: 1000}, {Supersteps: 99, Work: 0.990, H: 99000}},
		Nodes:      []jobs.NodeRecord{{ComputeSeconds: 1, SendSeconds: 0.02, WaitSeconds: 0.1}, {ComputeSeconds: 0.9, SendSeconds: 0.02, WaitSeconds: 0.1}}}
	return &jobs.Results{Path: "results.jsonl", Records: []jobs.RunRecord{rec}}
}

// bspParams are g and l as bench bsp keeps them.
var bspParams = &predict.BSPParams{Measured: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), R: 1e9,
	Networks: map[string]predict.BSPNetwork{
		predict.AllPairs: {G: 2e-9, L: 500e-6},
		"unix":           {G: 1e-9, L: 50e-6},
		"ethernet":       {G: 9e-9, L: 1.2e-3},
	}}

// bspJob sets the form to the BSP program ./ring 100.
func bspJob(v *Model) {
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "bsp" {
		v.press("enter")
	}
	v.param("program").Value = "./ring"
	v.param("args").Value = "100"
	v.validate()
}

func TestComposePredictBSPPanel(t *testing.T) {
	cases := []struct {
		name   string
		res    func(t *testing.T) *jobs.Results
		params *predict.BSPParams
	}{
		{name: "bsp_no_trace", params: bspParams},
		{name: "bsp_no_params", res: func(t *testing.T) *jobs.Results { return bspStore(t, 8) }},
		{name: "bsp", res: func(t *testing.T) *jobs.Results { return bspStore(t, 8) }, params: bspParams},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := composeWith(c, inventory.Embedded())
				if tc.res != nil {
					v.SetResults(tc.res(t))
				}
				v.SetBSP(tc.params)
				bspJob(&v)
				v = predicted(t, v)
				out := v.View()
				checkSize(t, c, out)
				requireGolden(t, out)
			})
		}
	}
}

// TestComposePredictBSP: a BSP program's job is predicted by W + h·g + l
// from its traced supersteps with the slowest network of its pairs (the
// embedded grid's 8 default nodes span two clusters: Ethernet between
// them); on another node count it says where the program was traced.
func TestComposePredictBSP(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.SetResults(bspStore(t, 8))
	v.SetBSP(bspParams)
	scheme, detector := v.field(fScheme).Value, v.field(fDetector).Value
	bspJob(&v)
	if p := v.Problems(); len(p) != 0 || v.field(fScheme).Value != "sync" {
		t.Fatalf("scheme %s, problems %q: a BSP program's job runs synchronously", v.field(fScheme).Value, p)
	}
	defer func() {
		// Cycling on to an application without supersteps gives the
		// scheme and detector back.
		for v.field(fApp).Value == "bsp" {
			v.press("enter")
		}
		if v.field(fScheme).Value != scheme || v.field(fDetector).Value != detector {
			t.Errorf("after bsp: scheme %s, detector %s; before: %s, %s", v.field(fScheme).Value, v.field(fDetector).Value, scheme, detector)
		}
	}()
	v = predicted(t, v)
	p := v.fc.bspOut
	if p == nil {
		t.Fatalf("no BSP prediction: err %v, pairs %v\n%s", v.fc.err, v.fc.req.pairs, ansiStrip(v.View()))
	}
	// By hand: W = 1 s; h·g = 100 000 B × 9 ns/B = 0.9 ms; l = 100 × 1.2 ms
	// = 120 ms; start-up 1.42 − 1.12 = 0.3 s.
	if p.Network != "ethernet" || p.Supersteps != 100 || math.Abs(p.Seconds-1.4209) > 1e-9 {
		t.Errorf("predicted %+v, want 1.4209 s on ethernet over 100 supersteps", p)
	}
	noNodes(&v)
	v.picked["alpha-1"], v.picked["alpha-2"] = true, true
	v.validate()
	v = predicted(t, v)
	if v.fc.bspOut != nil || !noTrace(v.fc.err) || !strings.Contains(v.fc.err.Error(), "traced on 8 nodes") {
		t.Errorf("on 2 nodes: %+v, err %v", v.fc.bspOut, v.fc.err)
	}
}
