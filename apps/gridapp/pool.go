package gridapp

import (
	"fmt"
	"sync"
)

// Pool is the per-node set of cores of Fig. 4's "distribute sub-tasks on the
// different cores": one persistent goroutine per extra core, woken once per
// sweep, and a barrier at the end of it. A Part creates one with its
// Subtask's Cores and closes it in Close.
//
// A Pool is driven by one goroutine (the Part's Sweep); Run is not
// reentrant. A panic in any core's job is raised by Run on the caller.
type Pool struct {
	start  []chan struct{}
	done   sync.WaitGroup
	exited sync.WaitGroup
	sigma  []paddedSigma
	panics []any // a helper core's panic, re-raised by Run on the caller
	job    func(core int) float64
	once   sync.Once
	closed bool
}

// paddedSigma keeps each core's σ on its own cache line (no false sharing).
type paddedSigma struct {
	v float64
	_ [56]byte
}

// NewPool starts a pool of cores cores (the caller of Run is core 0; fewer
// than 1 means 1).
func NewPool(cores int) *Pool {
	cores = max(cores, 1)
	p := &Pool{start: make([]chan struct{}, cores-1), sigma: make([]paddedSigma, cores), panics: make([]any, cores)}
	for c := 1; c < cores; c++ {
		ch := make(chan struct{}, 1)
		p.start[c-1] = ch
		p.exited.Add(1)
		go func() {
			defer p.exited.Done()
			for range ch {
				p.runCore(c)
			}
		}()
	}
	return p
}

// runCore runs the job of helper core c, keeping a panic for Run to raise
// on the caller's goroutine (where the environment recovers it and fails
// the run naming the application, instead of the process dying).
func (p *Pool) runCore(c int) {
	defer p.done.Done()
	defer func() {
		if r := recover(); r != nil {
			p.panics[c] = r
		}
	}()
	p.sigma[c].v = p.job(c)
}

// Cores returns the number of cores of the pool.
func (p *Pool) Cores() int { return len(p.sigma) }

// Run calls job(c) for every core c at once, waits for all, and returns the
// largest value they returned (the sweep's σ over the cores). After Close it
// runs the cores one after the other on the calling goroutine. Pass the
// same func value every sweep (e.g. a field set once) so that Run does not
// allocate.
func (p *Pool) Run(job func(core int) float64) float64 {
	if p.closed || len(p.start) == 0 {
		var sigma float64
		for c := range len(p.sigma) {
			sigma = max(sigma, job(c))
		}
		return sigma
	}
	p.job = job
	p.done.Add(len(p.start))
	for _, ch := range p.start {
		ch <- struct{}{}
	}
	sigma := p.runCaller(job)
	p.done.Wait()
	for c := 1; c < len(p.sigma); c++ {
		if r := p.panics[c]; r != nil {
			p.panics[c] = nil
			panic(fmt.Sprintf("core %d: %v", c, r))
		}
		sigma = max(sigma, p.sigma[c].v)
	}
	return sigma
}

// runCaller runs core 0's job; if it panics, the helpers are waited for
// before the panic goes on, so that none is left inside the sweep.
func (p *Pool) runCaller(job func(core int) float64) float64 {
	defer func() {
		if r := recover(); r != nil {
			p.done.Wait()
			clear(p.panics)
			panic(r)
		}
	}()
	return job(0)
}

// Close stops the pool's goroutines. It is idempotent.
func (p *Pool) Close() {
	p.once.Do(func() {
		p.closed = true
		for _, ch := range p.start {
			close(ch)
		}
		p.exited.Wait()
	})
}
