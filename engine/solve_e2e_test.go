package engine

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"

	"github.com/gridtui/gridtui/jobs"
)

// TestSchemesThroughWorkerProcesses runs the schemes end to end through Run:
// one `gridtui worker` process per node of the embedded local grid (two
// clusters), links on the networks Algorithm 1 chose, and checks the gathered
// solution against the serial reference.
func TestSchemesThroughWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	inv := loadInventory(t, "")
	tests := map[string]struct {
		scheme   jobs.Scheme
		detector jobs.Detector
		nodes    int
		n        int
		eps      float64
	}{
		"sync tokens, 3 nodes, uneven split": {jobs.Synchronous, jobs.DetectTokens, 3, 13, 1e-7},
		"async activity graph, 3 nodes":      {jobs.Asynchronous, jobs.DetectActivity, 3, 16, 1e-10},
		"async timed switch, 4 nodes":        {jobs.Asynchronous, jobs.DetectSwitch, 4, 16, 1e-10},
		"hybrid across both clusters":        {jobs.Hybrid, jobs.DetectActivity, 8, 16, 1e-10},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := obstacle.Problem{N: tc.n, Eps: tc.eps}
			spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": strconv.Itoa(tc.n), "eps": strconv.FormatFloat(tc.eps, 'g', -1, 64)}, Scheme: tc.scheme,
				Detector: tc.detector, Nodes: jobs.NodeSelection{Any: tc.nodes}, Cores: 1}
			rep := runJob(t, inv, spec, RunOptions{})
			if len(rep.Nodes) != tc.nodes || len(rep.Solution) != tc.n*tc.n*tc.n {
				t.Fatalf("%d nodes, %d values", len(rep.Nodes), len(rep.Solution))
			}
			serial, serialIters, _ := obstacle.SerialSolve(p)
			for _, nr := range rep.Nodes {
				t.Logf("node %s rank %d: %d iterations, %s", nr.Node, nr.Rank, nr.Iterations, nr.State)
			}
			if tc.scheme != jobs.Synchronous {
				if d := maxDiff(rep.Solution, serial); d > 1e-6 {
					t.Fatalf("max |u − serial| = %g", d)
				}
				return
			}
			want := serialIters + 2*(tc.nodes-1)
			for _, nr := range rep.Nodes {
				if nr.Iterations != want {
					t.Fatalf("node %s: %d iterations, want %d", nr.Node, nr.Iterations, want)
				}
			}
			ref := serialAfter(p, want)
			for i := range ref {
				if math.Float64bits(rep.Solution[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("point %d: %v, serial %v", i, rep.Solution[i], ref[i])
				}
			}
		})
	}
}

// TestExactIterations: a job's Iterations (gridtui run --iterations K, a
// job file's iterations = K) runs exactly K sweeps of every part whatever
// σ: a synchronous run equals the serial loop after K sweeps bit for bit,
// although the problem's ε (1e-10) is far from met.
func TestExactIterations(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	inv := loadInventory(t, "")
	const k = 37
	p := obstacle.Problem{N: 13, Eps: 1e-10}
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "13", "eps": "1e-10"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 3}, Cores: 1, Iterations: k}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if rep.Outcome != "ok" {
		t.Fatalf("run: %s", summary(rep))
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "exactly 37 sweeps of every part (iterations = 37)") {
		t.Errorf("the report does not say the sweeps were exact:\n%s", b.String())
	}
	ref := serialAfter(p, k)
	if len(rep.Solution) != len(ref) {
		t.Fatalf("%d values, want %d", len(rep.Solution), len(ref))
	}
	for i := range ref {
		if math.Float64bits(rep.Solution[i]) != math.Float64bits(ref[i]) {
			t.Fatalf("point %d: %v, serial after %d sweeps %v", i, rep.Solution[i], k, ref[i])
		}
	}
}
