package engine

import (
	"context"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// BenchmarkRun measures whole runs through worker processes on the local
// grid (the default job's problem, n = 48, ε = 1e-8): "solve-s" is the
// run's wall time as the report gives it (sub-tasks sent → results
// gathered), ns/op also counts starting and stopping the workers. The
// slab-1 sub-benchmark is the baseline of the same run: the same kernel
// (one obstacle.Slab on one core) iterated to ε in this process, no network. "startup-64" is a run that converges at once
// on 64 workers: the cost of the control plane itself.
func BenchmarkRun(b *testing.B) {
	p := map[string]string{"n": "48", "eps": "1e-8"}
	b.Run("slab-1", func(b *testing.B) {
		prob := obstacle.Problem{N: 48, Eps: 1e-8}
		for b.Loop() {
			s, err := obstacle.NewSlab(prob, gridapp.Range{Lo: 0, Hi: prob.N}, 1)
			if err != nil {
				b.Fatal(err)
			}
			for s.Sweep() >= prob.Eps {
			}
			s.Close()
		}
	})
	small := inventory.Embedded()
	big, err := inventory.Load("../testdata/jobs/sites64.toml")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		inv  *inventory.Inventory
		spec jobs.Spec
	}{
		{"engine-1", small, jobs.Spec{Params: p, Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 1}, Cores: 1}},
		{"sync-8", small, jobs.Spec{Params: p, Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1}},
		{"async-8", small, jobs.Spec{Params: p, Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1}},
		{"hybrid-8", small, jobs.Spec{Params: p, Scheme: jobs.Hybrid, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1}},
		{"startup-64", big, jobs.Spec{Params: map[string]string{"n": "64", "eps": "1"}, Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 64}, Cores: 1}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var solve time.Duration
			for b.Loop() {
				rep, err := Run(context.Background(), c.spec, RunOptions{Inventory: c.inv, NoRecord: true})
				if err != nil || rep.Outcome != "ok" {
					b.Fatalf("run: %v", err)
				}
				solve += rep.Wall
			}
			b.ReportMetric(solve.Seconds()/float64(b.N), "solve-s")
		})
	}
}
