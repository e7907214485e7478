package obstacle

import (
	"math"
	"testing"
)

func TestCheckComplementarity(t *testing.T) {
	p := Problem{N: 10, Eps: 1e-12}
	sol, _, _ := SerialSolve(p)
	res := Residual(p, sol)
	tol := ComplementarityTol(p, res)

	if c := CheckComplementarity(p, sol, tol); !c.OK {
		t.Fatalf("converged solution fails: %+v", c)
	} else if c.MinUMinusPhi != 0 {
		// The obstacle is active somewhere for this load: the contact set is
		// not empty, and u = φ exactly there (the projection copies φ).
		t.Fatalf("min(u − φ) = %v, want 0 (non-empty contact set)", c.MinUMinusPhi)
	}

	below := append([]float64(nil), sol...)
	below[(5*10+5)*10+5] -= 1e-3 // pushed under the obstacle
	early, _ := serialRun(p, 5)
	unconstrained := make([]float64, len(sol))
	for i := range unconstrained {
		unconstrained[i] = sol[i] - 0.05 // violates u ≥ φ on the contact set
	}
	for _, tc := range []struct {
		name string
		u    []float64
		bad  func(Complementarity) bool
	}{
		{"below obstacle", below, func(c Complementarity) bool { return c.MinUMinusPhi < 0 }},
		{"not converged", early, func(c Complementarity) bool { return c.MaxProduct > tol || c.MinAuMinusF < -tol }},
		{"shifted down", unconstrained, func(c Complementarity) bool { return c.MinUMinusPhi < 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := CheckComplementarity(p, tc.u, tol)
			if c.OK || !tc.bad(c) {
				t.Fatalf("check = %+v, want a failure", c)
			}
		})
	}

	t.Run("wrong length", func(t *testing.T) {
		c := CheckComplementarity(p, sol[:10], tol)
		if c.OK || !math.IsNaN(c.MaxProduct) {
			t.Fatalf("check = %+v, want NaN figures and not OK", c)
		}
	})
}

func TestResidualMatchesSweep(t *testing.T) {
	p := Problem{N: 6}
	u, sig := serialRun(p, 3)
	_, sig4 := serialRun(p, 4)
	if r := Residual(p, u); r != sig4[3] {
		t.Fatalf("Residual = %v, want σ of iteration 4 = %v (σ₃ = %v)", r, sig4[3], sig[2])
	}
}
