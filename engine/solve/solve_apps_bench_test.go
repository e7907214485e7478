package solve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/heat"
	"github.com/gridtui/gridtui/apps/sparse"
)

// appBench is one engine case of BenchmarkAppsTimeToSolution.
type appBench struct {
	name string
	c    graphRun
}

// runAppBench runs each case b.N times and reports the most sweeps of a
// rank.
func runAppBench(b *testing.B, app string, params map[string]string, cases []appBench) {
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c := tc.c
			c.app, c.params, c.cores = app, params, 1
			var res []SolveResult
			for b.Loop() {
				res, _, _ = c.run(b)
			}
			most := 0
			for _, r := range res {
				most = max(most, r.Iterations)
			}
			b.ReportMetric(float64(most), "iterations")
		})
	}
}

// BenchmarkAppsTimeToSolution measures the wall time of whole solves of the
// heat equation (n = 64, 5 time steps of 1e-3, ε = 1e-10: the outer steps'
// vote and fence once per step) and of the sparse solver (the 5-point
// Laplacian of a 64×64 grid from a Matrix Market file, Jacobi, ε = 1e-8) on
// 1, 2 and 4 in-process workers over loopback rmnp, one core each, next to
// their serial references measured in the same run. Run with -benchtime 1x.
func BenchmarkAppsTimeToSolution(b *testing.B) {
	twoClusters := func(a, c int) bool { return a/2 != c/2 }
	cases := []appBench{
		{"sync-tokens/b1", graphRun{ranks: 1, scheme: Synchronous}},
		{"sync-tokens/b2", graphRun{ranks: 2, scheme: Synchronous}},
		{"async-activity/b2", graphRun{ranks: 2, scheme: Asynchronous}},
		{"hybrid-activity/b4-two-clusters", graphRun{ranks: 4, scheme: Hybrid, asyncLink: twoClusters}},
	}
	b.Run("heat", func(b *testing.B) {
		p := heat.Problem{N: 64, DT: 1e-3, Steps: 5, Eps: 1e-10}
		b.Run("serial-reference", func(b *testing.B) {
			iters := 0
			for b.Loop() {
				s, _ := heat.SerialSolve(p, nil)
				iters = s.Iterations()
			}
			b.ReportMetric(float64(iters), "iterations")
		})
		runAppBench(b, heat.Name, map[string]string{"n": "64", "dt": "1e-3", "steps": "5", "eps": "1e-10"}, cases)
	})
	b.Run("sparse", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "laplace2d-64.mtx")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		a := sparse.Laplacian2D(64)
		if err := sparse.Write(f, a, "5-point Laplacian, 64×64 grid"); err != nil {
			b.Fatal(err)
		}
		f.Close()
		b.Run("serial-reference", func(b *testing.B) {
			rhs, iters := a.MulOnes(), 0
			for b.Loop() {
				_, iters, _, _ = sparse.SerialSolve(a, rhs, sparse.Jacobi, []gridapp.Range{{Lo: 0, Hi: a.N}}, 1e-8, 0)
			}
			b.ReportMetric(float64(iters), "iterations")
		})
		runAppBench(b, sparse.Name, map[string]string{"matrix": path, "eps": "1e-8"}, cases)
	})
}
