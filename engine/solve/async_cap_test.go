package solve

import (
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// TestAsyncSmallPartSlowNeighbour: a part of 3 points next to one of 21
// whose every update comes late sweeps many times per update, each time
// until its local test holds again on the same halo. The iteration limit
// counts its sweeps on new halos only (activityRun.exhausted), so a limit
// that its neighbour's sweeps stay well under does not stop it before the
// neighbour converged; counting every sweep did.
func TestAsyncSmallPartSlowNeighbour(t *testing.T) {
	const limit = 6000
	c := chainRun{p: obstacle.Problem{N: 24, Eps: 1e-8}, ranks: 2, cores: 1, scheme: Asynchronous, app: "test-rod",
		params:  map[string]string{"n": "24", "eps": "1e-8", "first": "3"},
		maxIter: limit,
		hooks:   map[int]*solveHooks{1: {beforeSend: func(int) { time.Sleep(100 * time.Microsecond) }}},
	}
	res, _ := c.run(t)
	t.Logf("sweeps: rank 0 %d, rank 1 %d; limit %d", res[0].Iterations, res[1].Iterations, limit)
	for r, rr := range res {
		if !rr.Converged {
			t.Errorf("rank %d stopped unconverged after %d sweeps (limit %d)", r, rr.Iterations, limit)
		}
	}
	if res[1].Iterations >= limit {
		t.Fatalf("rank 1 swept %d times: the limit %d is no bound on it, the test proves nothing", res[1].Iterations, limit)
	}
	// The run's solution: its true residual (one more Jacobi sweep).
	u := append(append([]float64{0}, res[0].Values...), res[1].Values...)
	u = append(u, 0)
	h := 1.0 / 25
	var sigma float64
	for i := 1; i+1 < len(u); i++ {
		sigma = max(sigma, math.Abs((u[i-1]+u[i+1]+h*h)/2-u[i]))
	}
	if len(u) != 26 || !(sigma < 1e-8) {
		t.Fatalf("%d values, true residual %g, want 24 and < 1e-8", len(u)-2, sigma)
	}
}
