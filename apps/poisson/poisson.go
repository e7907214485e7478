package poisson

import (
	"errors"
	"fmt"
	"math"
)

// MaxN bounds the grid size.
const MaxN = 4096

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("poisson: invalid problem")

// Problem is the pinned Poisson problem −Δu = f on Ω = (0,1)³, u = 0 on ∂Ω,
// N interior points per axis, h = 1/(N+1), solved by Jacobi iterations from
// u⁰ = 0 until σ = max|u' − u| < Eps (or MaxIter iterations; 0: no limit).
// Interior point (i, j, k), i, j, k = 1…N, lies at x = i·h, y = j·h, z = k·h;
// the grid is stored flat and x-major, point (i, j, k) at index
// ((i−1)·N + (j−1))·N + (k−1).
type Problem struct {
	N       int
	Eps     float64
	MaxIter int
}

// Validate reports whether p describes a problem the solvers accept.
func (p Problem) Validate() error {
	switch {
	case p.N < 1 || p.N > MaxN:
		return fmt.Errorf("%w: n = %d, want 1 ≤ n ≤ %d", ErrInvalid, p.N, MaxN)
	case !(p.Eps > 0) || math.IsInf(p.Eps, 1):
		return fmt.Errorf("%w: eps = %g, want a finite eps > 0", ErrInvalid, p.Eps)
	case p.MaxIter < 0:
		return fmt.Errorf("%w: max_iter = %d, want ≥ 0", ErrInvalid, p.MaxIter)
	}
	return nil
}

// H returns the mesh width 1/(N+1).
func (p Problem) H() float64 { return 1.0 / float64(p.N+1) }

// bump returns x·(1−x), rounded (no fused multiply-add anywhere: explicit
// conversions keep the bits equal on every architecture).
func bump(x float64) float64 { return float64(x * float64(1-x)) }

// coord returns the coordinate i·h of index i (1…N).
func coord(i int, h float64) float64 { return float64(float64(i) * h) }

// Load returns f at interior point (i, j, k), 1-based:
// f = 2.0·((fy·fz + fx·fz) + fx·fy), in exactly that order.
func Load(h float64, i, j, k int) float64 {
	fx, fy, fz := bump(coord(i, h)), bump(coord(j, h)), bump(coord(k, h))
	return float64(2.0 * (float64(float64(fy*fz)+float64(fx*fz)) + float64(fx*fy)))
}

// Exact returns the exact solution (fx·fy)·fz at interior point (i, j, k),
// which the 7-point stencil reproduces exactly at the grid points.
func Exact(h float64, i, j, k int) float64 {
	fx, fy, fz := bump(coord(i, h)), bump(coord(j, h)), bump(coord(k, h))
	return float64(float64(fx*fy) * fz)
}

// hhLoad returns h·h·f at (i, j, k), rounded as the reference does:
// (h·h)·f.
func hhLoad(h float64, i, j, k int) float64 {
	return float64(float64(h*h) * Load(h, i, j, k))
}

// SerialSweep performs one Jacobi iteration over the whole grid, reading u
// and writing next (x-major, N³ values), and returns σ = max|next − u|.
//
// This plain loop is the specification of the distributed sweep: for every
// interior point, with zero boundary values,
//
//	s  = ((((u[x-1] + u[x+1]) + u[y-1]) + u[y+1]) + u[z-1]) + u[z+1]
//	u' = (s + h·h·f) / 6
//
// in exactly this order. It panics if u or next is shorter than N³.
func SerialSweep(p Problem, u, next []float64) (sigma float64) {
	n, h := p.N, p.H()
	if len(u) < n*n*n || len(next) < n*n*n {
		panic("poisson: SerialSweep: slice shorter than N³")
	}
	at := func(i, j, k int) float64 {
		if i < 0 || i >= n || j < 0 || j >= n || k < 0 || k >= n {
			return 0
		}
		return u[(i*n+j)*n+k]
	}
	for i := range n {
		for j := range n {
			for k := range n {
				s := ((((at(i-1, j, k) + at(i+1, j, k)) + at(i, j-1, k)) + at(i, j+1, k)) +
					at(i, j, k-1)) + at(i, j, k+1)
				v := (s + hhLoad(h, i+1, j+1, k+1)) / 6.0
				idx := (i*n+j)*n + k
				sigma = max(sigma, math.Abs(v-u[idx]))
				next[idx] = v
			}
		}
	}
	return sigma
}

// SerialSolve runs SerialSweep from u⁰ = 0 until σ < Eps or MaxIter
// iterations and returns the last iterate, the iterations done and the
// last σ. For a p that does not validate it returns nil, 0, NaN.
func SerialSolve(p Problem) (u []float64, iters int, sigma float64) {
	if p.Validate() != nil {
		return nil, 0, math.NaN()
	}
	u = make([]float64, p.N*p.N*p.N)
	next := make([]float64, len(u))
	for p.MaxIter == 0 || iters < p.MaxIter {
		sigma = SerialSweep(p, u, next)
		u, next = next, u
		iters++
		if sigma < p.Eps {
			break
		}
	}
	return u, iters, sigma
}

// Residual returns the true global residual of u: the σ of one more sweep.
// It is NaN when u does not hold N³ values.
func Residual(p Problem, u []float64) float64 {
	if p.Validate() != nil || len(u) != p.N*p.N*p.N {
		return math.NaN()
	}
	return SerialSweep(p, u, make([]float64, len(u)))
}

// MaxError returns max |u − exact| over the grid.
func MaxError(p Problem, u []float64) float64 {
	n, h := p.N, p.H()
	var e float64
	for i := range n {
		for j := range n {
			for k := range n {
				e = max(e, math.Abs(u[(i*n+j)*n+k]-Exact(h, i+1, j+1, k+1)))
			}
		}
	}
	return e
}

// Sum returns the sum of u with k outermost, then j, then i (the reference's
// checksum order).
func Sum(p Problem, u []float64) float64 {
	n := p.N
	var s float64
	for k := range n {
		for j := range n {
			for i := range n {
				s += u[(i*n+j)*n+k]
			}
		}
	}
	return s
}
