package engine

import (
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestGainCurvePastReference: a converged run whose σ ends below the
// reference's last sample still gets the live estimate t1/ts, the figure
// its report gives, instead of none; an unconverged σ the reference never
// reached stays unknown.
func TestGainCurvePastReference(t *testing.T) {
	g := &gainCurve{t1: 4 * time.Second, eps: 1e-8, hist: []jobs.ResidualSample{{Seconds: 1, Sigma: 1e-3}, {Seconds: 4, Sigma: 9e-9}}}
	for _, tc := range []struct {
		sigma float64
		want  float64
	}{{1e-2, 0.5}, {1e-5, 2}, {5e-9, 2}, {0, 2}} {
		if got := g.gain(tc.sigma, 2*time.Second); got != tc.want {
			t.Errorf("gain(σ %g, 2s) = %v, want %v", tc.sigma, got, tc.want)
		}
	}
	g.hist = g.hist[:1]
	if got := g.gain(1e-5, 2*time.Second); got != 0 {
		t.Errorf("gain past a reference that never got below 1e-3 and not converged = %v, want 0", got)
	}
}
