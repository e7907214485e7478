package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// TestPredictBSP: gridtui predict of a BSP program's job replays the
// supersteps of its traced run by W + h·g + l with bench bsp's g and l of
// the job's slowest network, plus the traced start-up; without g and l,
// or on another node count, it fails saying what to run.
func TestPredictBSP(t *testing.T) {
	dir := t.TempDir()
	spec := jobs.Spec{App: "bsp", Params: map[string]string{"program": "./ring", "args": "100"}}
	_, v, err := spec.WithDefaults().Application()
	if err != nil {
		t.Fatal(err)
	}
	// 100 supersteps, W = 1 s, h = 100 000 B; wall 1.42 s, the busiest
	// process 1.12 s in supersteps.
	rec := jobs.RunRecord{Job: jobs.RunConfig{App: "bsp", Params: v.Encode(), Scheme: jobs.Synchronous, Nodes: 2, Inventory: jobs.InventoryEmbedded},
		WallSeconds: 1.42, Outcome: jobs.OutcomeOK,
		Nodes:      []jobs.NodeRecord{{ComputeSeconds: 1, SendSeconds: 0.02, WaitSeconds: 0.1}, {ComputeSeconds: 0.9}},
		Supersteps: []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.01, H: 1000}, {Supersteps: 99, Work: 0.99, H: 99000}}}
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	args := []string{"--data-dir", dir, "--app", "bsp", "--param", "program=./ring", "--param", "args=100", "--nodes", "alpha-1,alpha-2"}
	if _, err := runPredict(t, args...); err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "run gridtui bench bsp") {
		t.Errorf("without g and l: %v (status %d)", err, exitCode(err))
	}
	if err := predict.SaveBSP(dir, predict.BSPParams{Measured: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), R: 1e9,
		Networks: map[string]predict.BSPNetwork{predict.AllPairs: {G: 5e-9, L: 5e-3}, "infiniband": {G: 1e-9, L: 1e-3}}}); err != nil {
		t.Fatal(err)
	}
	out, err := runPredict(t, append(args, "--json")...)
	var p predict.BSPPrediction
	if err != nil || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// By hand, on alpha's infiniband: 1 s + 100 000 B × 1 ns + 100 × 1 ms + 0.3 s.
	if p.Network != "infiniband" || p.Supersteps != 100 || math.Abs(p.Seconds-1.4001) > 1e-9 {
		t.Errorf("predicted %+v, want 1.4001 s on infiniband", p)
	}
	out, err = runPredict(t, args...)
	for _, want := range []string{"bsp on 2 nodes: 1.4001s for 100 supersteps", "start-up  300ms", "g and l of infiniband: g 1 ns/byte, l 1ms"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("text lacks %q: %v\n%s", want, err, out)
		}
	}
	if _, err := runPredict(t, "--data-dir", dir, "--app", "bsp", "--param", "program=./ring", "--param", "args=100", "--nodes", "4"); err == nil ||
		!strings.Contains(err.Error(), "traced on 2 nodes") {
		t.Errorf("4 nodes: %v", err)
	}
	if _, err := runPredict(t, append(args, "--net", "ethernet=1Gbit/s")...); err == nil || exitCode(err) != 2 {
		t.Errorf("--net for a BSP program: %v", err)
	}
}
