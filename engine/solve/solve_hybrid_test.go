package solve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// hybridClusters describes a hybrid chain of clusters of equal size: the
// link between the last rank of a cluster and the first of the next is
// asynchronous, every other link synchronous.
func hybridClusters(p obstacle.Problem, clusters, size int) chainRun {
	return chainRun{p: p, ranks: clusters * size, cores: 1, scheme: Hybrid,
		asyncLink: func(r int) bool { return (r+1)%size == 0 }}
}

// checkLockstep fails unless every synchronous pair of c did the same number
// of iterations (see activityRun: partners exchange one message per
// iteration, and none is unread at termination).
func checkLockstep(t *testing.T, c chainRun, res []SolveResult) {
	t.Helper()
	for r := 0; r+1 < c.ranks; r++ {
		if c.asyncLink(r) {
			continue
		}
		if a, b := res[r].Iterations, res[r+1].Iterations; a != b {
			t.Fatalf("ranks %d and %d (synchronous link): %d and %d iterations, want equal (all: %v)",
				r, r+1, a, b, iterationsOf(res))
		}
	}
}

// TestHybridActivityLockstep: inside a cluster a hybrid run is synchronous,
// so at termination the ranks of a cluster have done the same number of
// iterations, however the asynchronous link between clusters lags; and the
// solution is the serial one within 1e-6.
func TestHybridActivityLockstep(t *testing.T) {
	p := obstacle.Problem{N: 24, Eps: 1e-9}
	serial, _, _ := obstacle.SerialSolve(p)
	for _, size := range []int{2, 3, 4} {
		for _, delay := range []time.Duration{0, 300 * time.Microsecond} {
			t.Run(fmt.Sprintf("2x%d/delay%v", size, delay), func(t *testing.T) {
				for i := range min(repeats(t), 8) { // 8 ranks of 2 cores: keep the full run short
					c := hybridClusters(p, 2, size)
					c.cores = 1 + i%2
					if delay > 0 {
						c.hooks = delayUpper(size-1, delay) // the link between the clusters
					}
					res, ranges := c.run(t)
					for r, rr := range res {
						if !rr.Converged {
							t.Fatalf("rank %d did not converge (iterations %v)", r, iterationsOf(res))
						}
					}
					checkLockstep(t, c, res)
					u := assemble(t, p, ranges, res)
					if d := maxDiff(u, serial); d > 1e-6 {
						t.Fatalf("max |u − serial| = %g > 1e-6 (iterations %v)", d, iterationsOf(res))
					}
					if r := obstacle.Residual(p, u); r > 2*p.Eps {
						t.Fatalf("true residual %g > 2ε (iterations %v)", r, iterationsOf(res))
					}
				}
			})
		}
	}
}

// TestHybridActivityMaxIterations: the iteration limit stops the ranks of a
// cluster at the same iteration, and the run terminates as not converged.
func TestHybridActivityMaxIterations(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-300, MaxIter: 40}
	c := hybridClusters(p, 2, 3)
	res, _ := c.run(t)
	for r, rr := range res {
		if rr.Iterations != 40 || rr.Converged {
			t.Fatalf("rank %d: %d iterations, converged %v; want 40, false (all: %v)", r, rr.Iterations, rr.Converged, iterationsOf(res))
		}
	}
}

// TestActivityContextEndReportsState: a run that ends on its context says
// where its detector stood, also when the context ends a blocking receive
// (rank 0 of a hybrid pair whose partner never runs waits for its halo).
func TestActivityContextEndReportsState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scheme Scheme
	}{
		{"hybrid, blocked on the synchronous halo", Hybrid},
		{"async, inactive waiting for acknowledgements", Asynchronous},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := chainRun{p: obstacle.Problem{N: 8, Eps: 1e-6}, ranks: 2, cores: 1, scheme: tc.scheme}
			eps := c.endpoints(t, ctx)
			st := Subtask{PartTask: definedTasks(t, "obstacle", obstacleParams(c.p), 2, 1)[0], Cores: 1, Scheme: tc.scheme,
				Neighbours: c.chainNeighbours(0)}
			runCtx, stop := context.WithTimeout(ctx, 300*time.Millisecond) // rank 1 never answers
			defer stop()
			_, err := Solve(runCtx, eps[0], st, nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Solve: %v, want the context's deadline", err)
			}
			for _, want := range []string{"activity graph: ", "engaged=true", "iterations)"} {
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
