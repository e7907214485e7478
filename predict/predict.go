package predict

import (
	"fmt"

	"github.com/gridtui/gridtui/jobs"
)

// Prediction is what a job is expected to do on a platform.
type Prediction struct {
	Scheme jobs.Scheme `json:"scheme"`
	Nodes  int         `json:"nodes"`
	// Seconds is the predicted time to solution (the run's wall time, ts).
	Seconds float64 `json:"seconds"`
	// Iterations per node: the least, the mean and the most.
	MinIterations  int     `json:"min_iterations"`
	MeanIterations float64 `json:"mean_iterations"`
	MaxIterations  int     `json:"max_iterations"`
	// IdleSeconds is the mean time a node waits for halos.
	IdleSeconds float64 `json:"idle_seconds"`
	// T1Seconds is the predicted single-node time and Gain = t1/ts
	// (GRIDHPC eq. 2).
	T1Seconds float64 `json:"t1_seconds"`
	Gain      float64 `json:"gain"`
	// Staleness is the replayed halo age (asynchronous links; see
	// StalenessModel).
	Staleness float64 `json:"staleness,omitempty"`
}

// Predict replays job on the platform with the model's traces. An
// asynchronous or hybrid prediction needs a fitted staleness model when the
// replay finds stale halos; without one the iteration count is the
// synchronous one and the error says so.
func Predict(m *Model, pl Platform, job Job) (Prediction, error) {
	p := Prediction{Scheme: job.Scheme, Nodes: pl.Nodes()}
	if m.SyncIterations == 0 {
		return p, fmt.Errorf("%w: no synchronous run of %s n = %d, ε = %g to take the iteration count from: run it once with --scheme sync",
			ErrNoTrace, m.Problem.App, m.Problem.N, m.Problem.Eps)
	}
	r, err := newReplay(m, pl, job)
	if err != nil {
		return p, err
	}
	k := min(m.SyncIterations, maxReplay)
	ends := r.run(k)
	iters := float64(m.SyncIterations)
	if job.Scheme != jobs.Synchronous {
		p.Staleness = r.staleness(k)
		iters *= 1 + m.Staleness.Alpha*p.Staleness
	}
	scale := iters / float64(k)
	if job.Scheme == jobs.Synchronous {
		p.applySync(ends, r.idle, scale, m.SyncIterations)
	} else {
		p.applyAsync(ends, r.idle, k, iters)
	}
	p.Seconds += m.Overhead
	cont := 1.0
	if pl.SharedCores > 0 {
		cont = max(1, float64(max(job.Cores, 1))/float64(pl.SharedCores))
	}
	p.T1Seconds = float64(m.SyncIterations)*m.PointSeconds*float64(m.Points)/float64(max(job.Cores, 1))*cont + m.Overhead
	if p.Seconds > 0 {
		p.Gain = p.T1Seconds / p.Seconds
	}
	return p, nil
}

// applySync extrapolates a synchronous replay: every node does the same
// iterations and the run ends with its slowest node.
func (p *Prediction) applySync(ends, idle []float64, scale float64, iters int) {
	last := 0.0
	for _, e := range ends {
		last = max(last, e)
	}
	p.Seconds = last * scale
	p.MinIterations, p.MaxIterations, p.MeanIterations = iters, iters, float64(iters)
	p.IdleSeconds = mean(idle) * scale
}

// applyAsync extrapolates an asynchronous (or hybrid) replay: each node
// sweeps at its own rate, and the run lasts until the nodes have done iters
// sweeps on average.
func (p *Prediction) applyAsync(ends, idle []float64, k int, iters float64) {
	rate := 0.0
	for _, e := range ends {
		if e > 0 {
			rate += float64(k) / e
		}
	}
	rate /= float64(len(ends))
	if rate == 0 {
		return
	}
	p.Seconds = iters / rate
	p.MinIterations = int(^uint(0) >> 1)
	sum := 0.0
	for i, e := range ends {
		it := iters
		if e > 0 {
			it = float64(k) / e * p.Seconds
		}
		sum += it
		p.MinIterations = min(p.MinIterations, int(it+0.5))
		p.MaxIterations = max(p.MaxIterations, int(it+0.5))
		if e > 0 {
			p.IdleSeconds += idle[i] / e * p.Seconds / float64(len(ends))
		}
	}
	p.MeanIterations = sum / float64(len(ends))
}
