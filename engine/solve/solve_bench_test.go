package solve

import (
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// BenchmarkTimeToSolution measures the wall time of a whole solve at n = 64,
// ε = 1e-8 (links set up included, a few ms) for each scheme on 1 and 2
// in-process workers over loopback TCP rmnp, one core each, next to the
// serial reference loop measured in the same run. Run with -benchtime 1x.
func BenchmarkTimeToSolution(b *testing.B) {
	p := obstacle.Problem{N: 64, Eps: 1e-8}
	b.Run("serial-reference", func(b *testing.B) {
		iters := 0
		for b.Loop() {
			_, iters, _ = obstacle.SerialSolve(p)
		}
		b.ReportMetric(float64(iters), "iterations")
	})
	twoClusters := func(int) bool { return true }
	cases := []struct {
		name string
		c    chainRun
	}{
		{"sync-tokens/b1", chainRun{ranks: 1, scheme: Synchronous}},
		{"sync-tokens/b2", chainRun{ranks: 2, scheme: Synchronous}},
		{"async-activity/b2", chainRun{ranks: 2, scheme: Asynchronous}},
		{"async-switch/b2", chainRun{ranks: 2, scheme: Asynchronous, detector: DetectSwitch, period: 20 * time.Millisecond}},
		{"hybrid-activity/b2-one-cluster", chainRun{ranks: 2, scheme: Hybrid}},
		{"hybrid-activity/b2-two-clusters", chainRun{ranks: 2, scheme: Hybrid, asyncLink: twoClusters}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c := tc.c
			c.p, c.cores = p, 1
			var res []SolveResult
			for b.Loop() {
				res, _ = c.run(b)
			}
			most := 0
			for _, r := range res {
				most = max(most, r.Iterations)
			}
			b.ReportMetric(float64(most), "iterations")
		})
	}
}

// BenchmarkHybridTwoClusters runs the console's default job shape: hybrid,
// two clusters of four in-process workers (one asynchronous link between
// them), n = 48, ε = 1e-8, one core each. It reports the sweeps of all ranks
// together and the largest difference of Iterations between two neighbours on
// a synchronous link (0 since every iteration of a rank with a synchronous
// link sweeps).
// Run with -benchtime 1x.
func BenchmarkHybridTwoClusters(b *testing.B) {
	c := hybridClusters(obstacle.Problem{N: 48, Eps: 1e-8}, 2, 4)
	var res []SolveResult
	for b.Loop() {
		res, _ = c.run(b)
	}
	sweeps, spread := 0, 0
	for r, rr := range res {
		sweeps += rr.Iterations
		if r+1 < len(res) && !c.asyncLink(r) {
			spread = max(spread, abs(rr.Iterations-res[r+1].Iterations))
		}
	}
	b.ReportMetric(float64(sweeps), "sweeps")
	b.ReportMetric(float64(spread), "max-cluster-spread")
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
