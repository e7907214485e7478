package poisson

import (
	"math"
	"testing"
)

// TestSerialReference pins the serial figures of DESIGN.md (C, gcc -O3).
func TestSerialReference(t *testing.T) {
	tests := map[string]struct {
		n     int
		iters int
		sum   float64 // 0: not pinned
		err   float64 // bound on the max error, 0: not pinned
	}{
		"n16": {16, 600, 0, 0},
		"n32": {32, 1975, 165.89674402239899, 2.2e-6},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := Problem{N: tc.n, Eps: 1e-8}
			u, iters, sigma := SerialSolve(p)
			if iters != tc.iters || !(sigma < p.Eps) {
				t.Fatalf("%d iterations, σ %g; want %d", iters, sigma, tc.iters)
			}
			if tc.sum != 0 && Sum(p, u) != tc.sum {
				t.Fatalf("sum %.17g, want %.17g", Sum(p, u), tc.sum)
			}
			if e := MaxError(p, u); tc.err != 0 && !(e < tc.err && e > tc.err/2) {
				t.Fatalf("max error %g, want about %g", e, tc.err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Problem{{N: 0, Eps: 1}, {N: 4, Eps: 0}, {N: 4, Eps: math.Inf(1)}, {N: 4, Eps: 1, MaxIter: -1}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
		if u, _, s := SerialSolve(p); u != nil || !math.IsNaN(s) {
			t.Errorf("%+v solved", p)
		}
	}
}
