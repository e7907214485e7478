package obstacle

import (
	"errors"
	"fmt"
	"sync"
)

// ErrSlab is wrapped by every error NewSlab and Assemble return.
var ErrSlab = errors.New("obstacle: bad slab")

// Slab is one computing node's share of the obstacle problem in the a·b
// decomposition of GRIDHPC Sec. VI-B: the planes x ∈ [Lo, Hi) of u, u' and φ,
// plus one halo plane on each side holding the neighbours' interface values.
// φ is held factored, as one value per z-row and one per z (phiAt), which
// keeps the same bits, a third of the memory, and a quarter of the kernel's
// memory traffic (see docs/bench/kernel.md).
// Inside the node, a persistent pool of goroutines (one per core) sweeps
// sub-slabs along y, with one barrier per sweep.
//
// A Slab is not safe for concurrent use: write the halos, call Sweep, read the
// planes, in turn, from one goroutine. Call Close to stop its pool.
type Slab struct {
	p     Problem
	r     Range
	n     int     // points per axis
	plane int     // n·n, the length of one x-plane
	hhf   float64 // h²·f, rounded

	u, next []float64 // owned planes, current and next iterate, (Hi−Lo)·n·n each
	phiRow  []float64 // φ factored: phiRow[li·n + j] − phiZ[k], see phiAt
	phiZ    []float64
	haloLo  []float64 // plane Lo−1: the lower neighbour's values, or zeros on ∂Ω
	haloHi  []float64 // plane Hi: the upper neighbour's values, or zeros on ∂Ω
	zero    []float64 // n zeros: the y = 0 and y = 1 boundary rows

	cores []Range // the y-range each core owns
	iter  int
	pool  *slabPool
}

// slabPool is the in-node worker pool: core 0 is the caller of Sweep, cores
// 1..a−1 are goroutines that wait on their start channel.
type slabPool struct {
	start  []chan struct{} // start[c−1] wakes core c
	done   sync.WaitGroup  // the per-sweep barrier
	exited sync.WaitGroup  // all helper goroutines have returned
	sigma  []paddedSigma   // per-core σ of the last sweep
	once   sync.Once
	closed bool
}

// paddedSigma keeps each core's σ on its own cache line (no false sharing).
type paddedSigma struct {
	v float64
	_ [56]byte
}

// SlabBytes returns the memory a Slab of the given number of planes holds
// for grid size n: u and u' for its planes, two halo planes, and φ in
// factored form. A planner can check it against a host's memory before
// NewSlab allocates.
func SlabBytes(n, planes int) int64 {
	n64, m := int64(n), int64(planes)
	return 8 * (2*m*n64*n64 + 2*n64*n64 + m*n64 + 2*n64)
}

// NewSlab allocates the slab of planes r for problem p, initialised to
// u⁰ = max(φ, 0), with zero halos, and starts a pool of cores goroutines
// (the caller's included) that split the y axis between them.
func NewSlab(p Problem, r Range, cores int) (*Slab, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if r.Lo < 0 || r.Hi > p.N || r.Lo >= r.Hi {
		return nil, fmt.Errorf("%w: planes %v outside [0,%d) or empty", ErrSlab, r, p.N)
	}
	ys, err := Split(p.N, cores)
	if err != nil {
		return nil, fmt.Errorf("%w: %d cores on %d rows along y: %w", ErrSlab, cores, p.N, err)
	}
	n := p.N
	plane := n * n
	owned := r.Len() * plane
	s := &Slab{
		p: p, r: r, n: n, plane: plane, hhf: p.hhf(),
		u:      make([]float64, owned),
		next:   make([]float64, owned),
		phiRow: make([]float64, r.Len()*n),
		phiZ:   make([]float64, n),
		haloLo: make([]float64, plane),
		haloHi: make([]float64, plane),
		zero:   make([]float64, n),
		cores:  ys,
	}
	h := p.H()
	for k := range n {
		s.phiZ[k] = phiZ(h, k)
	}
	for li := range r.Len() {
		for j := range n {
			s.phiRow[li*n+j] = phiRow(h, r.Lo+li, j)
			for k := range n {
				s.u[(li*n+j)*n+k] = max(s.phiRow[li*n+j]-s.phiZ[k], 0)
			}
		}
	}
	s.startPool()
	return s, nil
}

// startPool starts the helper goroutines for cores 1..a−1.
func (s *Slab) startPool() {
	a := len(s.cores)
	pl := &slabPool{start: make([]chan struct{}, a-1), sigma: make([]paddedSigma, a)}
	s.pool = pl
	for c := 1; c < a; c++ {
		ch := make(chan struct{}, 1)
		pl.start[c-1] = ch
		pl.exited.Add(1)
		go func() {
			defer pl.exited.Done()
			for range ch {
				pl.sigma[c].v = s.sweepRows(s.cores[c])
				pl.done.Done()
			}
		}()
	}
}

// Sweep performs one projected Richardson iteration on the owned planes with
// the current halos, makes the result current and returns the local
// σ = max|u' − u| over the slab. It allocates nothing. After Close it still
// works, on the calling goroutine alone.
func (s *Slab) Sweep() float64 {
	pl := s.pool
	var sigma float64
	if pl.closed || len(pl.start) == 0 {
		for _, ys := range s.cores {
			sigma = max(sigma, s.sweepRows(ys))
		}
	} else {
		pl.done.Add(len(pl.start))
		for _, ch := range pl.start {
			ch <- struct{}{}
		}
		sigma = s.sweepRows(s.cores[0])
		pl.done.Wait()
		for c := 1; c < len(pl.sigma); c++ {
			sigma = max(sigma, pl.sigma[c].v)
		}
	}
	s.u, s.next = s.next, s.u
	s.iter++
	return sigma
}

// Iteration returns the number of sweeps done so far.
func (s *Slab) Iteration() int { return s.iter }

// Range returns the planes the slab owns.
func (s *Slab) Range() Range { return s.r }

// Cores returns the y-ranges of the slab's cores.
func (s *Slab) Cores() []Range { return append([]Range(nil), s.cores...) }

// Problem returns the problem the slab belongs to.
func (s *Slab) Problem() Problem { return s.p }

// LowPlane returns the current values of plane Lo, to send to the lower
// neighbour. The slice aliases the slab: it is valid until the next Sweep.
func (s *Slab) LowPlane() []float64 { return s.u[:s.plane:s.plane] }

// HighPlane returns the current values of plane Hi−1, to send to the upper
// neighbour. The slice aliases the slab: it is valid until the next Sweep.
func (s *Slab) HighPlane() []float64 {
	return s.u[len(s.u)-s.plane : len(s.u) : len(s.u)]
}

// LowHalo returns the writable plane Lo−1; receive the lower neighbour's
// HighPlane into it before a Sweep. It keeps its contents across sweeps
// (latest-value semantics for asynchronous schemes). It is nil when Lo = 0:
// that plane is the boundary ∂Ω, which stays 0 (copy into nil is a no-op).
func (s *Slab) LowHalo() []float64 {
	if s.r.Lo == 0 {
		return nil
	}
	return s.haloLo
}

// HighHalo returns the writable plane Hi; receive the upper neighbour's
// LowPlane into it before a Sweep. It is nil when Hi = N (the boundary).
func (s *Slab) HighHalo() []float64 {
	if s.r.Hi == s.n {
		return nil
	}
	return s.haloHi
}

// Values returns the current owned values, (Hi−Lo)·N·N of them, x-major. The
// slice aliases the slab: it is valid until the next Sweep.
func (s *Slab) Values() []float64 { return s.u }

// Close stops the slab's pool of goroutines. It is idempotent.
func (s *Slab) Close() {
	pl := s.pool
	pl.once.Do(func() {
		pl.closed = true
		for _, ch := range pl.start {
			close(ch)
		}
		pl.exited.Wait()
	})
}

// Assemble gathers the values of slabs owning parts (in order, covering
// [0, N) without gap) into the full x-major grid.
func Assemble(p Problem, parts []Range, values [][]float64) ([]float64, error) {
	if err := p.WithDefaults().Validate(); err != nil {
		return nil, err
	}
	if len(parts) != len(values) {
		return nil, fmt.Errorf("%w: %d ranges but %d value slices", ErrSlab, len(parts), len(values))
	}
	n := p.N
	plane := n * n
	u := make([]float64, n*plane)
	next := 0
	for i, r := range parts {
		if r.Lo != next || r.Hi <= r.Lo || r.Hi > n {
			return nil, fmt.Errorf("%w: part %d is %v, want [%d,hi) with hi ≤ %d", ErrSlab, i, r, next, n)
		}
		if len(values[i]) != r.Len()*plane {
			return nil, fmt.Errorf("%w: part %d %v has %d values, want %d", ErrSlab, i, r, len(values[i]), r.Len()*plane)
		}
		copy(u[r.Lo*plane:], values[i])
		next = r.Hi
	}
	if next != n {
		return nil, fmt.Errorf("%w: parts end at plane %d, want %d", ErrSlab, next, n)
	}
	return u, nil
}
