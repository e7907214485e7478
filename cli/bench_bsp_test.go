package cli

import (
	"math"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/predict"
)

// TestBSPParams: bspbench's figures become the cost model's parameters,
// confidence half-widths read from their texts, and are kept in the data
// directory for the Network view and prediction.
func TestBSPParams(t *testing.T) {
	rep := &engine.Report{Nodes: []engine.NodeReport{{Node: "alpha-1"}, {Node: "beta-1"}}, Figures: []gridapp.Figure{
		{Name: "r", Value: 2e9, Text: "2000 Mflop/s (DAXPY, process 0)"},
		{Name: "g all pairs", Value: 0.7e-9, Text: "0.70 ± 0.10 ns/byte (11.2 flop/word)"},
		{Name: "l all pairs", Value: 8e-6, Text: "8.0 ± 1.5 µs (16000 flop)"},
		{Name: "g ethernet", Value: 9e-9, Text: "9.00 ± 2.00 ns/byte (144.0 flop/word)"},
		{Name: "l ethernet", Value: 1.2e-3, Text: "1200.0 ± 300.0 µs (2400000 flop)"},
	}}
	p := bspParams(rep)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	eth := p.Networks["ethernet"]
	if p.R != 2e9 || len(p.Nodes) != 2 || !near(eth.G, 9e-9) || !near(eth.GCI, 2e-9) || !near(eth.L, 1.2e-3) || !near(eth.LCI, 300e-6) {
		t.Fatalf("parameters %+v", p)
	}
	if all := p.Networks[predict.AllPairs]; !near(all.LCI, 1.5e-6) || !near(all.GCI, 0.1e-9) {
		t.Fatalf("all pairs %+v", all)
	}
	dir := t.TempDir()
	if _, err := saveBSPParams(dir, rep); err != nil {
		t.Fatal(err)
	}
	if q, err := predict.LoadBSP(dir); err != nil || q.Networks["ethernet"] != eth {
		t.Fatalf("loaded %+v, %v", q, err)
	}
}
