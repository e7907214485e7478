package obstacle

import (
	"errors"
	"fmt"
	"math"
)

// DefaultEps is the convergence threshold of the GRIDHPC experiments (Sec. VI):
// a run has converged when σ = max|u' − u| < 1e-11.
const DefaultEps = 1e-11

// Load is the constant right-hand side f of the pinned obstacle problem.
const Load = -10.0

// MaxN bounds the grid size accepted by Validate, as the job spec does: the
// whole grid is spread over many nodes, each holding SlabBytes of it; a
// single node's memory is checked against SlabBytes, not here.
const MaxN = 4096

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("obstacle: invalid obstacle problem")

// Problem is the pinned 3-D obstacle problem of GRIDHPC Sec. VI on Ω = (0,1)³
// with N interior points per axis, solved by projected Richardson iterations
// until σ < Eps or MaxIter iterations (0 means no limit).
//
// The grid is stored flat and x-major: point (i, j, k), i.e. x = (i+1)h,
// y = (j+1)h, z = (k+1)h, lives at index (i*N + j)*N + k, so that a plane
// x = const is one contiguous N·N block (the unit of halo exchange).
type Problem struct {
	N       int
	Eps     float64
	MaxIter int
}

// WithDefaults returns p with a zero Eps replaced by DefaultEps.
func (p Problem) WithDefaults() Problem {
	if p.Eps == 0 {
		p.Eps = DefaultEps
	}
	return p
}

// Validate reports whether p describes a problem the solvers accept; the
// error names the offending field.
func (p Problem) Validate() error {
	switch {
	case p.N < 1:
		return fmt.Errorf("%w: n = %d, want n ≥ 1", ErrInvalid, p.N)
	case p.N > MaxN:
		return fmt.Errorf("%w: n = %d, want n ≤ %d", ErrInvalid, p.N, MaxN)
	case !(p.Eps > 0):
		return fmt.Errorf("%w: eps = %g, want eps > 0", ErrInvalid, p.Eps)
	case math.IsInf(p.Eps, 1):
		return fmt.Errorf("%w: eps = %g, want a finite eps", ErrInvalid, p.Eps)
	case p.MaxIter < 0:
		return fmt.Errorf("%w: max_iter = %d, want max_iter ≥ 0 (0 = no limit)", ErrInvalid, p.MaxIter)
	}
	return nil
}

// H returns the mesh width 1/(N+1).
func (p Problem) H() float64 { return 1.0 / float64(p.N+1) }

// Points returns the number of interior grid points N³.
func (p Problem) Points() int { return p.N * p.N * p.N }

// hhf returns h²·f. The explicit conversion rounds the product, so that no
// architecture may fuse it into the addition s + h²f (the Go spec permits
// fusing x*y + z); that keeps runs bit-for-bit identical across amd64 and
// arm64 workers.
func (p Problem) hhf() float64 {
	h := p.H()
	return float64(float64(h*h) * Load)
}

// PhiAt returns the obstacle φ(x,y,z) = −0.2 + 0.05x + 0.03y − 0.02z at
// interior point (i, j, k). Every product is rounded explicitly (no FMA), and
// the sum is evaluated left to right, so that φ has the same bits everywhere.
// It is phiRow(i, j) − phiZ(k): the kernel keeps φ in that factored form.
func PhiAt(h float64, i, j, k int) float64 {
	return phiRow(h, i, j) - phiZ(h, k)
}

// phiRow returns the part of φ constant along a z-row: −0.2 + 0.05x + 0.03y.
func phiRow(h float64, i, j int) float64 {
	x := float64(float64(i+1) * h)
	y := float64(float64(j+1) * h)
	return -0.2 + float64(0.05*x) + float64(0.03*y)
}

// phiZ returns the z term of φ, 0.02z.
func phiZ(h float64, k int) float64 {
	z := float64(float64(k+1) * h)
	return float64(0.02 * z)
}

// Phi returns the obstacle φ on the whole grid, x-major.
func Phi(p Problem) []float64 {
	n, h := p.N, p.H()
	phi := make([]float64, n*n*n)
	for i := range n {
		for j := range n {
			for k := range n {
				phi[(i*n+j)*n+k] = PhiAt(h, i, j, k)
			}
		}
	}
	return phi
}

// InitialGuess returns u⁰ = max(φ, 0) on the whole grid, x-major.
func InitialGuess(p Problem) []float64 {
	u := Phi(p)
	for i, v := range u {
		u[i] = max(v, 0)
	}
	return u
}

// SerialSweep performs one projected Richardson iteration (δ = h²/6) over the
// whole grid, reading u and writing next, and returns σ = max|next − u|.
//
// This plain loop is the specification of the fast slab kernel: for every
// interior point, with zero boundary values,
//
//	s  = ((((u[x-1] + u[x+1]) + u[y-1]) + u[y+1]) + u[z-1]) + u[z+1]
//	u' = max(φ, (s + h²f) / 6)
//
// in exactly this order, which makes every decomposition bit-for-bit equal to
// it. It panics if u or next is shorter than N³ (a programmer error).
func SerialSweep(p Problem, u, next []float64) (sigma float64) {
	n, h, hhf := p.N, p.H(), p.hhf()
	if len(u) < n*n*n || len(next) < n*n*n {
		panic("obstacle: SerialSweep: slice shorter than N³")
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
				v := max(PhiAt(h, i, j, k), (s+hhf)/6.0)
				idx := (i*n+j)*n + k
				sigma = max(sigma, math.Abs(v-u[idx]))
				next[idx] = v
			}
		}
	}
	return sigma
}

// SerialSolve runs SerialSweep from InitialGuess until σ < Eps or MaxIter
// iterations, and returns the last iterate, the number of iterations done
// (the converging one included) and the last σ. A zero Eps means DefaultEps.
// For a p that does not validate it returns nil, 0, NaN: call Validate on
// outside input first to learn why.
func SerialSolve(p Problem) (u []float64, iters int, sigma float64) {
	p = p.WithDefaults()
	if p.Validate() != nil {
		return nil, 0, math.NaN()
	}
	u = InitialGuess(p)
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

// Residual returns the true global residual of u: the σ of one more
// synchronous sweep over the whole grid. It is what the console shows after a
// run, whatever the termination detector believed. It is NaN when p does
// not validate or u does not hold N³ values.
func Residual(p Problem, u []float64) float64 {
	if p.WithDefaults().Validate() != nil || len(u) != p.Points() {
		return math.NaN()
	}
	next := make([]float64, len(u))
	return SerialSweep(p, u, next)
}
