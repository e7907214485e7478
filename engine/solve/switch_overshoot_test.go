package solve

import (
	"slices"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// TestAsyncSwitchOvershoot checks that the switch detector stops soon after
// the grid has converged instead of iterating until its timer is due: with
// a long asynchronous section (the timer's period grows to 8× while σ is far
// from ε) a node whose local test holds calls the section itself. Waiting
// for the timer iterated to the fixed point, many times the serial count;
// the bound, 8× the serial iterations, leaves room for the extra sweeps
// asynchronous iterations of thin slabs need (docs/bench/schemes.md, "Switch
// detector overshoot").
func TestAsyncSwitchOvershoot(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-6}
	_, serialIts, _ := obstacle.SerialSolve(p)
	for range 3 {
		c := chainRun{p: p, ranks: 2, cores: 1, scheme: Asynchronous,
			detector: DetectSwitch, period: 2 * time.Second}
		res, _ := c.run(t)
		its := slices.Max(iterationsOf(res))
		t.Logf("iterations %v, serial %d", iterationsOf(res), serialIts)
		if its > 8*serialIts {
			t.Errorf("the switch detector ran %d iterations, the serial solver needs %d", its, serialIts)
		}
	}
}
