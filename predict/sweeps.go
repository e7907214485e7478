package predict

import (
	"cmp"
	"math"

	"github.com/gridtui/gridtui/jobs"
)

// This file holds what the traces say about how many sweeps an
// asynchronous or hybrid run's nodes do and what one costs the host's
// cores: the iteration counts a prediction reports, and the CPU an
// asynchronous run needs at the least.

// asyncSweeps is the mean sweeps per node of an asynchronous run of
// scheme on nodes nodes (the fitted line, at least 1); 0 when no run of
// the scheme was traced.
func (m *Model) asyncSweeps(scheme jobs.Scheme, nodes int) float64 {
	l, ok := m.AsyncSweeps[scheme]
	if !ok {
		return 0
	}
	return max(1, l.A+l.B*math.Log2(float64(max(nodes, 1))))
}

// fitCPU reads what a sweep and a message cost the host's cores. A sweep's
// traced time is wall time: on a host its nodes share, it includes the
// time the node waited for a core, so the CPU of a sweep is the least time
// per point among the traced runs (the least disturbed one; load only
// slows a sweep down). A message costs the time its bytes take to send
// (ByteSeconds); an asynchronous link sends at most one message per sweep,
// fewer when it skips (more often between clusters, where a message is
// longer in flight), so each scheme's links send the bytes per sweep that
// its traced runs show on links of the same kind.
func (m *Model) fitCPU(recs []jobs.RunRecord) {
	m.CorePointSeconds = 0
	type key struct {
		s       jobs.Scheme
		between bool
	}
	bytes := map[key][]float64{}
	for _, r := range recs {
		var pp []float64
		c := contention(r)
		cluster := map[int]string{}
		for _, n := range r.Nodes {
			cluster[n.Rank] = n.Cluster
		}
		for _, n := range r.Nodes {
			tr := n.Trace
			pp = append(pp, tr.Sweeps.Mean()/c*float64(max(n.Cores, 1))/float64(tr.Points))
			if r.Job.Scheme == jobs.Synchronous || n.Iterations == 0 {
				continue
			}
			for _, l := range tr.Links {
				k := key{r.Job.Scheme, cluster[l.Peer] != n.Cluster}
				bytes[k] = append(bytes[k], float64(l.BytesSent)/float64(n.Iterations))
			}
		}
		if x := mean(pp); x > 0 && (m.CorePointSeconds == 0 || x < m.CorePointSeconds) {
			m.CorePointSeconds = x
		}
	}
	m.SweepLinkBytes = map[jobs.Scheme]LinkLoad{}
	for k, xs := range bytes {
		l := m.SweepLinkBytes[k.s]
		if k.between {
			l.Between = mean(xs)
		} else {
			l.Inside = mean(xs)
		}
		m.SweepLinkBytes[k.s] = l
	}
}

// LinkLoad is what one link sends per sweep, in bytes, inside a cluster
// and between two.
type LinkLoad struct {
	Inside  float64 `json:"inside"`
	Between float64 `json:"between"`
}

// at is the load of a link between clusters or inside one, the other
// kind's when the traces show only that one, else fallback.
func (l LinkLoad) at(between bool, fallback float64) float64 {
	x, y := l.Inside, l.Between
	if between {
		x, y = y, x
	}
	return cmp.Or(x, y, fallback)
}

// cpuBound is the least time an asynchronous or hybrid run takes for its
// sweeps and messages on the nodes' cores: sweeps per node, each costing
// sweepCPU, the nodes sharing the host's cores when they do (see Options).
// 0 when sweeps is 0.
func (r *replay) cpuBound(m *Model, scheme jobs.Scheme, sweeps float64) float64 {
	if sweeps <= 0 {
		return 0
	}
	return r.sweepCPU(m, scheme) * sweeps * r.cont
}

// sweepCPU is the CPU of one sweep and its messages on a node, the mean
// over the nodes: a sweep's CPU (CorePointSeconds per point) and the bytes
// its links send per sweep (SweepLinkBytes, by the link's kind, at
// ByteSeconds).
func (r *replay) sweepCPU(m *Model, scheme jobs.Scheme) float64 {
	pointSeconds := cmp.Or(m.CorePointSeconds, m.PointSeconds)
	load := m.SweepLinkBytes[scheme]
	cpu := 0.0
	for i := range r.sweep {
		cpu += pointSeconds * float64(r.points[i]) / float64(r.cores)
		for _, ed := range r.out[i] {
			cpu += load.at(ed.wire != nil, m.LinkBytes) * m.ByteSeconds
		}
	}
	return cpu / float64(len(r.sweep))
}
