package predict

import (
	"github.com/gridtui/gridtui/jobs"
)

// fitHybridExcess fits the hybrid scheme's iteration count. A hybrid
// run's ranks sweep in lockstep with the synchronous neighbours of their
// cluster, so a rank does the synchronous count K and more: K · (1 + a/c),
// c the nodes of its cluster. A cluster of one node is an asynchronous
// node (its excess is a); in a cluster of c, the excess that the stale
// halos over the link between the clusters cause is spread over c ranks
// sweeping together. a is the mean over the traced hybrid runs' nodes of
// (iterations/K − 1) · c, K the synchronous count on the run's node count;
// 0 without a traced hybrid or synchronous run.
func (m *Model) fitHybridExcess(recs []jobs.RunRecord) {
	if m.SyncIterations == 0 {
		return
	}
	var xs []float64
	for _, r := range recs {
		if r.Job.Scheme != jobs.Hybrid {
			continue
		}
		k := float64(m.syncIterations(len(r.Nodes)))
		sizes := map[string]int{}
		for _, n := range r.Nodes {
			sizes[n.Cluster]++
		}
		for _, n := range r.Nodes {
			xs = append(xs, max(0, float64(n.Iterations)/k-1)*float64(sizes[n.Cluster]))
		}
	}
	m.HybridExcess = mean(xs)
}

// hybridIterations sets p's iterations per node from the hybrid model:
// each rank K · (1 + a/c), c the nodes of its cluster on pl.
func (m *Model) hybridIterations(p *Prediction, pl Platform) {
	k := float64(m.syncIterations(p.Nodes))
	p.MinIterations, p.MaxIterations = int(^uint(0)>>1), 0
	sum, nodes := 0.0, 0
	for _, cl := range pl.Clusters {
		if cl.Nodes < 1 {
			continue
		}
		it := k * (1 + m.HybridExcess/float64(cl.Nodes))
		p.MinIterations = min(p.MinIterations, int(it+0.5))
		p.MaxIterations = max(p.MaxIterations, int(it+0.5))
		sum += it * float64(cl.Nodes)
		nodes += cl.Nodes
	}
	if nodes > 0 {
		p.MeanIterations = sum / float64(nodes)
	}
}

// LockstepRun is one traced hybrid run whose clusters sweep in lockstep
// (a cluster of two nodes or more): the time per iteration of its cluster
// least held back by the link between the clusters (its busiest node's
// time over the cluster's iterations), and the part of it a sweep takes,
// with what they were measured on.
type LockstepRun struct {
	Nodes int `json:"nodes"`
	// Points per node and core, and Contention (cores asked per core of a
	// shared host, at least 1) of the run.
	Points           float64 `json:"points"`
	Contention       float64 `json:"contention"`
	IterationSeconds float64 `json:"iteration_seconds"`
	SweepSeconds     float64 `json:"sweep_seconds"`
}

// fitLockstep keeps the traced hybrid runs that had a cluster of two nodes
// or more, each timed by its fastest such cluster. A cluster's ranks
// iterate together; the one whose node next to the other cluster sends
// over a saturated link between them waits for that link at every
// iteration (its sends block), so its iterations measure the link, which
// the staleness rounds already count, not the lockstep on the host's
// cores. The cluster that iterated fastest is the one least held back.
func (m *Model) fitLockstep(recs []jobs.RunRecord) {
	m.Lockstep = nil
	for _, r := range recs {
		if r.Job.Scheme != jobs.Hybrid {
			continue
		}
		best, points := LockstepRun{}, 0.0
		for _, cl := range clustersOf(r) {
			if len(cl) < 2 {
				continue // a cluster of one node: no lockstep
			}
			it, sweep := clusterPace(cl)
			if it > 0 && (best.IterationSeconds == 0 || it < best.IterationSeconds) {
				best.IterationSeconds, best.SweepSeconds = it, min(sweep, it)
			}
		}
		if best.IterationSeconds == 0 {
			continue
		}
		for _, n := range r.Nodes {
			points += float64(n.Trace.Points) / float64(max(n.Cores, 1)) / float64(len(r.Nodes))
		}
		best.Nodes, best.Points, best.Contention = len(r.Nodes), points, m.runContention(r)
		m.Lockstep = append(m.Lockstep, best)
	}
}

// clusterPace is a cluster's time per iteration (its busiest node's time
// over the cluster's mean iterations) and the mean time of one of its
// sweeps; 0, 0 without iterations.
func clusterPace(cl []jobs.NodeRecord) (iteration, sweep float64) {
	busiest, its := 0.0, 0.0
	for _, n := range cl {
		busiest = max(busiest, n.ComputeSeconds+n.SendSeconds+n.WaitSeconds)
		its += float64(n.Iterations) / float64(len(cl))
		if n.Iterations > 0 {
			sweep += n.ComputeSeconds / float64(n.Iterations) / float64(len(cl))
		}
	}
	if its == 0 {
		return 0, 0
	}
	return busiest / its, sweep
}

// clustersOf is rec's nodes by cluster, in the order the clusters first
// appear.
func clustersOf(rec jobs.RunRecord) [][]jobs.NodeRecord {
	at := map[string]int{}
	var out [][]jobs.NodeRecord
	for _, n := range rec.Nodes {
		i, ok := at[n.Cluster]
		if !ok {
			i = len(out)
			at[n.Cluster] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], n)
	}
	return out
}

// runContention is how many nodes shared a core in rec: on a shared host
// (Options.SharedCores) its nodes' cores over the host's, on the embedded
// local grid the same over the console host's; at least 1.
func (m *Model) runContention(rec jobs.RunRecord) float64 {
	if m.SharedCores > 0 {
		cores := 0
		for _, n := range rec.Nodes {
			cores += max(n.Cores, 1)
		}
		return max(1, float64(cores)/float64(m.SharedCores))
	}
	return contention(rec)
}

// lockstepSeconds is the time of one hybrid iteration on nodes of the
// given points per core at the host's contention cont, from the traced
// lockstep runs (their mean): a sweep scales with the points and the
// contention, the rest of an iteration (the exchange with the cluster's
// synchronous neighbours, which waits for each of them to be given a core)
// with the contention. 0 without a traced lockstep run.
func (m *Model) lockstepSeconds(points, cont float64) float64 {
	var xs []float64
	for _, l := range m.Lockstep {
		c := cont / l.Contention
		xs = append(xs, l.SweepSeconds*points/l.Points*c+(l.IterationSeconds-l.SweepSeconds)*c)
	}
	return mean(xs)
}
