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
	// Staleness is the replayed halo age: sweeps per delivered update,
	// minus one, over the asynchronous links.
	Staleness float64 `json:"staleness,omitempty"`
	// SweepsPerRound is, for a hybrid run whose rounds follow the law in
	// L, L: the iterations a cluster does in lockstep per round of the
	// link between the clusters.
	SweepsPerRound float64 `json:"sweeps_per_round,omitempty"`
	// RoundSeconds is, for an asynchronous run, the replayed interval
	// between updates on its slowest asynchronous link (one round).
	RoundSeconds float64 `json:"round_seconds,omitempty"`
}

// Predict replays job on the platform with the model's traces. A
// synchronous run is replayed sweep by sweep and extrapolated to the
// traced iteration count; an asynchronous or hybrid one lasts the
// staleness model's rounds of its slowest asynchronous link, an
// asynchronous one's each with the time an update takes to reach that
// link across the grid (see StalenessModel and crossing), but at least
// the CPU its sweeps and messages need on the nodes' cores (cpuBound)
// and, hybrid, its iterations in lockstep (lockstepSeconds). An
// asynchronous run's iterations per node are the fitted sweeps, spread as
// the replayed rates; a hybrid rank's follow its cluster's size
// (fitHybridExcess).
func Predict(m *Model, pl Platform, job Job) (Prediction, error) {
	p := Prediction{Scheme: job.Scheme, Nodes: pl.Nodes()}
	if m.SyncIterations == 0 {
		return p, fmt.Errorf("%w: no synchronous run of %s to take the iteration count from: run it once with --scheme sync",
			ErrNoTrace, m.Problem.Describe())
	}
	r, err := newReplay(m, pl, job)
	if err != nil {
		return p, err
	}
	iters := m.syncIterations(p.Nodes)
	k := min(iters, maxReplay)
	ends := r.run(k)
	round := r.round(ends)
	if job.Scheme == jobs.Synchronous || round == 0 {
		p.applySync(ends, r.idle, float64(iters)/float64(k), iters)
	} else {
		p.Staleness = r.staleness(k)
		if job.Scheme == jobs.Asynchronous {
			p.RoundSeconds = round
		}
		points := float64(m.Points) / float64(p.Nodes) / float64(max(job.Cores, 1))
		f := m.Staleness.Rounds(job.Scheme, p.Nodes)
		if job.Scheme == jobs.Hybrid {
			f = m.hybridFactor(f, round, points, r.cont, r.sweepCPU(m, job.Scheme))
			if m.Staleness.HybridAlpha > 0 {
				p.SweepsPerRound = m.lockstepSweeps(round, points, r.cont, r.sweepCPU(m, job.Scheme))
			}
		}
		link := f * float64(iters) * (round + r.crossing(m, job.Scheme, ends))
		sweeps := m.asyncSweeps(job.Scheme, p.Nodes)
		lockstep := 0.0
		if job.Scheme == jobs.Hybrid && m.HybridExcess > 0 {
			var h Prediction
			m.hybridIterations(&h, pl)
			sweeps = h.MeanIterations
			lockstep = sweeps * m.lockstepSeconds(points, r.cont)
		}
		p.applyAsync(ends, r.idle, k, max(link, lockstep, r.cpuBound(m, job.Scheme, sweeps)))
		switch {
		case job.Scheme == jobs.Hybrid && m.HybridExcess > 0:
			m.hybridIterations(&p, pl)
		case sweeps > 0:
			p.scaleIterations(sweeps)
		}
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

// scaleIterations keeps the nodes' replayed iteration rates relative to
// each other but sets their mean (the replay sweeps as fast as its compute
// figure allows; the fitted sweeps per node know the host's other costs).
func (p *Prediction) scaleIterations(mean float64) {
	if p.MeanIterations <= 0 {
		return
	}
	f := mean / p.MeanIterations
	p.MinIterations = int(float64(p.MinIterations)*f + 0.5)
	p.MaxIterations = int(float64(p.MaxIterations)*f + 0.5)
	p.MeanIterations = mean
}

// applyAsync extrapolates an asynchronous (or hybrid) replay of k sweeps
// to a run of the given seconds of iterations: each node sweeps at its
// replayed rate meanwhile.
func (p *Prediction) applyAsync(ends, idle []float64, k int, seconds float64) {
	p.Seconds = seconds
	p.MinIterations = int(^uint(0) >> 1)
	sum := 0.0
	for i, e := range ends {
		it := float64(k)
		if e > 0 {
			it = float64(k) / e * seconds
			p.IdleSeconds += idle[i] / e * seconds / float64(len(ends))
		}
		sum += it
		p.MinIterations = min(p.MinIterations, int(it+0.5))
		p.MaxIterations = max(p.MaxIterations, int(it+0.5))
	}
	p.MeanIterations = sum / float64(len(ends))
}
