package gridapp

import "sync"

// Pool is the per-node set of cores of Fig. 4's "distribute sub-tasks on the
// different cores": one persistent goroutine per extra core, woken once per
// sweep, and a barrier at the end of it. A Part creates one with its
// Subtask's Cores and closes it in Close.
//
// A Pool is driven by one goroutine (the Part's Sweep); Run is not
// reentrant.
type Pool struct {
	start  []chan struct{}
	done   sync.WaitGroup
	exited sync.WaitGroup
	sigma  []paddedSigma
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
	p := &Pool{start: make([]chan struct{}, cores-1), sigma: make([]paddedSigma, cores)}
	for c := 1; c < cores; c++ {
		ch := make(chan struct{}, 1)
		p.start[c-1] = ch
		p.exited.Add(1)
		go func() {
			defer p.exited.Done()
			for range ch {
				p.sigma[c].v = p.job(c)
				p.done.Done()
			}
		}()
	}
	return p
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
	sigma := job(0)
	p.done.Wait()
	for c := 1; c < len(p.sigma); c++ {
		sigma = max(sigma, p.sigma[c].v)
	}
	return sigma
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
