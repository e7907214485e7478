package obstacle

import "math"

// Complementarity is the outcome of checking the discrete obstacle problem's
// optimality conditions on a solution u:
//
//	u − φ ≥ 0,   Au − f ≥ 0,   (Au − f)(u − φ) = 0,
//
// with (Au)ᵢ = (6uᵢ − Σ₆ neighbours)/h² (zero on ∂Ω). The minima and the
// maximum of |(Au − f)(u − φ)| are over all interior points.
type Complementarity struct {
	MinUMinusPhi float64 // min(u − φ); ≥ −Tol·h²/6 required
	MinAuMinusF  float64 // min(Au − f); ≥ −Tol required
	MaxProduct   float64 // max|(Au − f)(u − φ)|; ≤ Tol required
	Tol          float64 // the tolerance the check used, in units of Au − f
	OK           bool    // all three conditions hold
}

// ComplementarityTol returns the tolerance CheckComplementarity should use for
// a solution whose true residual (see Residual) is residual.
//
// Why this scale: where the obstacle is inactive, one Richardson update is
// u' − u = −(h²/6)(Au − f), so a solution with update size σ has
// |Au − f| ≈ 6σ/h². Rounding adds a few ulps of |u| to each term of 6u − Σ,
// amplified by 1/h². The tolerance is four times the sum of both, so an
// iterate converged to σ < ε passes, and one far from convergence does not.
// |u − φ| < 1 on this problem, so the same Tol bounds the product.
func ComplementarityTol(p Problem, residual float64) float64 {
	h := p.H()
	const roundoff = 64 * 0x1p-52 // ulps lost in 6u − Σ₆, relative to |u| ≤ 1
	return 4 * 6 * (residual + roundoff) / (h * h)
}

// CheckComplementarity evaluates the optimality conditions of u (x-major, N³
// values) with tolerance tol in units of Au − f; u − φ is allowed down to
// −tol·h²/6, the same tolerance mapped back through δ = h²/6. A u of the
// wrong length fails the check with NaN figures rather than panicking.
func CheckComplementarity(p Problem, u []float64, tol float64) Complementarity {
	n, h := p.N, p.H()
	c := Complementarity{
		MinUMinusPhi: math.Inf(1),
		MinAuMinusF:  math.Inf(1),
		Tol:          tol,
	}
	if n < 1 || len(u) != n*n*n {
		nan := math.NaN()
		c.MinUMinusPhi, c.MinAuMinusF, c.MaxProduct = nan, nan, nan
		return c
	}
	at := func(i, j, k int) float64 {
		if i < 0 || i >= n || j < 0 || j >= n || k < 0 || k >= n {
			return 0
		}
		return u[(i*n+j)*n+k]
	}
	invH2 := 1 / (h * h)
	for i := range n {
		for j := range n {
			for k := range n {
				ui := u[(i*n+j)*n+k]
				s := at(i-1, j, k) + at(i+1, j, k) + at(i, j-1, k) + at(i, j+1, k) +
					at(i, j, k-1) + at(i, j, k+1)
				r := float64(6*ui-s)*invH2 - Load
				g := ui - PhiAt(h, i, j, k)
				c.MinUMinusPhi = min(c.MinUMinusPhi, g)
				c.MinAuMinusF = min(c.MinAuMinusF, r)
				c.MaxProduct = max(c.MaxProduct, math.Abs(r*g))
			}
		}
	}
	c.OK = c.MinUMinusPhi >= -tol*h*h/6 && c.MinAuMinusF >= -tol && c.MaxProduct <= tol
	return c
}
