package predict

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestPredictBSP(t *testing.T) {
	p := BSPParams{R: 1e9, Networks: map[string]BSPNetwork{
		AllPairs:   {G: 1e-9, L: 100e-6},
		"ethernet": {G: 10e-9, L: 1e-3},
		"noisy":    {G: -2e-9, L: -1e-6},
	}}
	// Three supersteps: W = 10 ms, 0, 5 ms; h = 1000, 0, 3000 bytes (the
	// last two in one group).
	groups := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.010, H: 1000}, {Supersteps: 2, Work: 0.005, H: 3000}}
	// By hand on ethernet: ΣW = 15 ms; g·Σh = 10 ns × 4000 = 40 µs; 3·l = 3 ms.
	got, err := p.PredictBSP(groups, "ethernet")
	if err != nil {
		t.Fatal(err)
	}
	if !nearly(got.Work, 0.015) || !nearly(got.Comm, 40e-6) || !nearly(got.Sync, 3e-3) || !nearly(got.Seconds, 0.01804) ||
		got.Supersteps != 3 || got.H != 4000 || got.Network != "ethernet" {
		t.Errorf("ethernet: %+v, want 18.04 ms = 15 ms + 40 µs + 3 ms over 3 supersteps", got)
	}
	// A network without figures: all pairs' (15 ms + 4 µs + 300 µs).
	if got, err := p.PredictBSP(groups, "infiniband"); err != nil || !nearly(got.Seconds, 0.015304) || got.Network != AllPairs {
		t.Errorf("infiniband: %+v %v, want 15.304 ms on all pairs", got, err)
	}
	// Negative fits count as 0: the work alone.
	if got, err := p.PredictBSP(groups, "noisy"); err != nil || !nearly(got.Seconds, 0.015) {
		t.Errorf("noisy: %+v %v, want 15 ms", got, err)
	}
	if _, err := p.PredictBSP(nil, "ethernet"); !errors.Is(err, ErrNoTrace) {
		t.Errorf("no supersteps: %v, want ErrNoTrace", err)
	}
	if _, err := (BSPParams{Networks: map[string]BSPNetwork{"unix": {}}}).PredictBSP(groups, "ethernet"); err == nil || !strings.Contains(err.Error(), "no g and l for ethernet nor for all pairs: run gridtui bench bsp") {
		t.Errorf("no figures: %v, want advice to run gridtui bench bsp", err)
	}
}

func TestSlowestNetwork(t *testing.T) {
	p := BSPParams{Networks: map[string]BSPNetwork{
		AllPairs: {L: 5e-3}, "unix": {G: 1e-9, L: 50e-6}, "ethernet": {G: 9e-9, L: 1e-3}, "infiniband": {G: 1e-9, L: 1e-3},
	}}
	for _, c := range []struct {
		nets []string
		want string
	}{
		{[]string{"unix", "ethernet"}, "ethernet"},
		{[]string{"infiniband", "ethernet"}, "ethernet"}, // same l, larger g
		{[]string{"unix"}, "unix"},
		{[]string{"wifi"}, AllPairs},
		{nil, AllPairs},
	} {
		if got := p.SlowestNetwork(c.nets); got != c.want {
			t.Errorf("%v: %s, want %s", c.nets, got, c.want)
		}
	}
}

func TestBSPTrace(t *testing.T) {
	prob := Problem{App: "bsp", Params: "program=./inprod"}
	rec := func(id string, nodes int, ok bool, steps int) jobs.RunRecord {
		r := jobs.RunRecord{ID: id, Outcome: jobs.OutcomeOK, Job: jobs.RunConfig{App: "bsp", Nodes: nodes, Params: map[string]string{"program": "./inprod"}}}
		if !ok {
			r.Outcome = jobs.OutcomeFailed
		}
		if steps > 0 {
			r.Supersteps = []gridapp.SuperstepGroup{{Supersteps: steps}}
		}
		return r
	}
	// The problem's key as the store computes it.
	prob.Params = problemOfRecord(rec("x", 1, true, 1).Job).Params
	res := &jobs.Results{Records: []jobs.RunRecord{
		rec("old", 4, true, 3), rec("new", 4, true, 5), rec("failed", 4, false, 7), rec("untraced", 4, true, 0), rec("two", 2, true, 2),
	}}
	r, err := BSPTrace(res, prob, 4, "")
	if err != nil || r.ID != "new" {
		t.Fatalf("trace on 4 nodes: %s %v, want the newest ok run with supersteps", r.ID, err)
	}
	_, err = BSPTrace(res, prob, 8, "")
	if !errors.Is(err, ErrNoTrace) || !strings.Contains(err.Error(), "on 8 nodes") || !strings.Contains(err.Error(), "traced on 2, 4 nodes") {
		t.Errorf("8 nodes: %v, want ErrNoTrace naming 2 and 4", err)
	}
	if _, err := BSPTrace(res, prob, 4, "/elsewhere/sites.toml"); !errors.Is(err, ErrNoTrace) {
		t.Errorf("another inventory's runs predicted: %v", err)
	}
	if _, err := BSPTrace(nil, prob, 4, ""); !errors.Is(err, ErrNoTrace) {
		t.Errorf("no store: %v", err)
	}
}

func TestPredictBSPTrace(t *testing.T) {
	p := BSPParams{Networks: map[string]BSPNetwork{AllPairs: {G: 1e-9, L: 1e-3}}}
	// Wall 0.5 s; the busiest process spent 0.4 + 0.02 + 0.03 s in supersteps:
	// 50 ms outside them.
	tr := jobs.RunRecord{ID: "r1", WallSeconds: 0.5, Nodes: []jobs.NodeRecord{
		{ComputeSeconds: 0.4, SendSeconds: 0.02, WaitSeconds: 0.03}, {ComputeSeconds: 0.39, SendSeconds: 0.02, WaitSeconds: 0.02}},
		Supersteps: []gridapp.SuperstepGroup{{Supersteps: 10, Work: 0.4, H: 1000}}}
	got, err := p.PredictBSPTrace(tr, "unix")
	// 0.4 s + 1 µs + 10 ms + 50 ms.
	if err != nil || !nearly(got.Startup, 0.05) || !nearly(got.Seconds, 0.460001) || got.Source != "r1" || got.SourceWall != 0.5 {
		t.Errorf("%+v %v, want 460.001 ms with 50 ms of start-up from r1", got, err)
	}
	tr.Nodes = nil // no times recorded: no start-up
	if got, err := p.PredictBSPTrace(tr, "unix"); err != nil || got.Startup != 0 || !nearly(got.Seconds, 0.410001) {
		t.Errorf("without node times: %+v %v", got, err)
	}
}
