package heat

import (
	"errors"
	"fmt"
	"math"
)

// Bounds of a problem: the grid and the time series are held in memory at
// the submitter (every step is written out), so their product is bounded.
const (
	MaxN      = 4096
	MaxSteps  = 100000
	MaxValues = 1 << 27 // steps · n²
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("heat: invalid problem")

// Problem is the heat equation u_t = Δu on Ω = (0,1)², u = 0 on ∂Ω,
// u(0) = sin(πx)·sin(πy), N interior points per axis, h = 1/(N+1), advanced
// by Steps implicit Euler steps of length DT. Step s solves
//
//	(1 + 4r)·uˢ − r·(sum of the four neighbours of uˢ) = uˢ⁻¹,  r = DT/h²
//
// by Jacobi iterations started from uˢ⁻¹, until σ = max|u' − u| < Eps (or
// MaxIter sweeps in all; 0: no limit). Interior point (i, j), i, j = 1…N,
// lies at x = i·h, y = j·h and is stored at index (i−1)·N + (j−1).
type Problem struct {
	N       int
	DT      float64
	Steps   int
	Eps     float64
	MaxIter int
}

// Validate reports whether p describes a problem the solvers accept.
func (p Problem) Validate() error {
	switch {
	case p.N < 1 || p.N > MaxN:
		return fmt.Errorf("%w: n = %d, want 1 ≤ n ≤ %d", ErrInvalid, p.N, MaxN)
	case !(p.DT > 0) || math.IsInf(p.DT, 1):
		return fmt.Errorf("%w: dt = %g, want a finite dt > 0", ErrInvalid, p.DT)
	case p.Steps < 1 || p.Steps > MaxSteps:
		return fmt.Errorf("%w: steps = %d, want 1 ≤ steps ≤ %d", ErrInvalid, p.Steps, MaxSteps)
	case p.Steps*p.N*p.N > MaxValues:
		return fmt.Errorf("%w: steps·n² = %d values, want ≤ %d (the series is kept)", ErrInvalid, p.Steps*p.N*p.N, MaxValues)
	case !(p.Eps > 0) || math.IsInf(p.Eps, 1):
		return fmt.Errorf("%w: eps = %g, want a finite eps > 0", ErrInvalid, p.Eps)
	case p.MaxIter < 0:
		return fmt.Errorf("%w: max_iter = %d, want ≥ 0", ErrInvalid, p.MaxIter)
	}
	return nil
}

// H returns the mesh width 1/(N+1).
func (p Problem) H() float64 { return 1.0 / float64(p.N+1) }

// R returns r = DT/h².
func (p Problem) R() float64 {
	h := p.H()
	return p.DT / float64(h*h)
}

// diag returns 1 + 4r, the diagonal of a step's matrix.
func (p Problem) diag() float64 { return float64(1 + float64(4*p.R())) }

// Initial returns u(0) at interior point (i, j), 1-based.
func Initial(h float64, i, j int) float64 {
	return float64(math.Sin(math.Pi*float64(float64(i)*h)) * math.Sin(math.Pi*float64(float64(j)*h)))
}

// Decay returns the factor by which one implicit Euler step of the discrete
// problem multiplies u(0), an eigenvector of the 5-point Laplacian with
// eigenvalue μ = 8/h²·sin²(πh/2): uˢ = u(0)/(1 + DT·μ)ˢ exactly.
func (p Problem) Decay() float64 {
	h := p.H()
	sn := math.Sin(math.Pi * h / 2)
	return 1 / (1 + p.DT*8/(h*h)*sn*sn)
}

// InitialGrid returns u(0) on the N² interior points.
func InitialGrid(p Problem) []float64 {
	n, h := p.N, p.H()
	u := make([]float64, n*n)
	for i := range n {
		for j := range n {
			u[i*n+j] = Initial(h, i+1, j+1)
		}
	}
	return u
}

// SerialSweep performs one Jacobi iteration of a step over the whole grid:
// prev is the previous time level, u the current iterate, next receives the
// new one (N² values each); it returns σ = max|next − u|.
//
// This plain loop is the specification of the distributed sweep: for every
// interior point, with zero boundary values,
//
//	s  = ((u[x−1] + u[x+1]) + u[y−1]) + u[y+1]
//	u' = (prev + r·s) / (1 + 4r)
//
// in exactly this order. It panics if a slice is shorter than N².
func SerialSweep(p Problem, prev, u, next []float64) (sigma float64) {
	n, r, d := p.N, p.R(), p.diag()
	if len(prev) < n*n || len(u) < n*n || len(next) < n*n {
		panic("heat: SerialSweep: slice shorter than N²")
	}
	at := func(i, j int) float64 {
		if i < 0 || i >= n || j < 0 || j >= n {
			return 0
		}
		return u[i*n+j]
	}
	for i := range n {
		for j := range n {
			s := ((at(i-1, j) + at(i+1, j)) + at(i, j-1)) + at(i, j+1)
			idx := i*n + j
			v := (prev[idx] + float64(r*s)) / d
			sigma = max(sigma, math.Abs(v-u[idx]))
			next[idx] = v
		}
	}
	return sigma
}

// Series is the outcome of SerialSolve: the solution after every step and
// the sweeps each step took.
type Series struct {
	U      [][]float64 // U[s−1] is uˢ, s = 1…Steps (fewer if MaxIter cut the run)
	Sweeps []int
	Sigma  float64 // σ of the last sweep
}

// Iterations returns the sweeps of all steps.
func (s Series) Iterations() int {
	k := 0
	for _, n := range s.Sweeps {
		k += n
	}
	return k
}

// SerialSolve runs the time steps from u(0), each step's Jacobi iterations
// started from the previous time level until σ < Eps; with sweeps non-nil,
// step s does exactly sweeps[s−1] iterations instead (how a synchronous run
// of the engine, which stops each step a few iterations after σ < Eps, is
// compared with this reference). MaxIter bounds the sweeps of all steps.
func SerialSolve(p Problem, sweeps []int) (Series, error) {
	if err := p.Validate(); err != nil {
		return Series{}, err
	}
	if sweeps != nil && len(sweeps) != p.Steps {
		return Series{}, fmt.Errorf("%w: %d sweep counts for %d steps", ErrInvalid, len(sweeps), p.Steps)
	}
	prev := InitialGrid(p)
	var out Series
	total := 0
	for step := range p.Steps {
		u := append([]float64(nil), prev...)
		next := make([]float64, len(u))
		k := 0
		for p.MaxIter == 0 || total < p.MaxIter {
			out.Sigma = SerialSweep(p, prev, u, next)
			u, next = next, u
			k++
			total++
			if sweeps == nil && out.Sigma < p.Eps || sweeps != nil && k == sweeps[step] {
				break
			}
		}
		out.U, out.Sweeps = append(out.U, u), append(out.Sweeps, k)
		if p.MaxIter > 0 && total >= p.MaxIter {
			break
		}
		prev = u
	}
	return out, nil
}

// Residual returns the true global residual of a series: the largest σ of
// one more sweep of any step, from the series' previous level. It is NaN
// when the series does not hold Steps levels of N² values.
func Residual(p Problem, u [][]float64) float64 {
	if p.Validate() != nil || len(u) != p.Steps {
		return math.NaN()
	}
	prev, next := InitialGrid(p), make([]float64, p.N*p.N)
	var res float64
	for _, us := range u {
		if len(us) != p.N*p.N {
			return math.NaN()
		}
		res = max(res, SerialSweep(p, prev, us, next))
		prev = us
	}
	return res
}

// MaxError returns max |uˢ − u(0)·Decayˢ| over the grid for the level u of
// step s.
func MaxError(p Problem, s int, u []float64) float64 {
	n, h := p.N, p.H()
	f := math.Pow(p.Decay(), float64(s))
	var e float64
	for i := range n {
		for j := range n {
			e = max(e, math.Abs(u[i*n+j]-Initial(h, i+1, j+1)*f))
		}
	}
	return e
}

// Sum returns the sum of u in index order (a checksum).
func Sum(u []float64) float64 {
	var s float64
	for _, x := range u {
		s += x
	}
	return s
}
