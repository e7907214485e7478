package predict

import (
	"math"

	"github.com/gridtui/gridtui/jobs"
)

// This file holds the hybrid scheme's rounds factor on shared cores.
//
// Between the clusters a hybrid run is asynchronous; inside each the ranks
// sweep in lockstep, which is the same arithmetic as one node sweeping
// the cluster's whole part: the cluster's size changes how long a sweep
// takes, not what it computes. Between two updates over the link between
// the clusters a cluster therefore does L sweeps of its part, L the
// link's round over the cluster's lockstep iteration, and how many rounds
// the run needs depends on L: with one sweep per round the run is a
// synchronous one (K rounds, f = 1), and the more sweeps a round holds the
// fewer rounds it takes. Two laws bound that, each fitted on the traced
// hybrid runs with one parameter:
//
//   - the power law f = L^−α anchored at the synchronous limit, which
//     extrapolates from the traced level as if every sweep still paid;
//   - the floor f = 1/L + f∞: a round buys L sweeps of the synchronous
//     iteration (K/L rounds) and the run needs f∞ · K rounds whatever L
//     (the exchanges between the clusters it cannot do without).
//
// From traces of 2 and 4 nodes, where L hardly moves, neither can be told
// right: the measured factors of 8 and 16 nodes lay between them, near
// the floor at n = 48 (the power law 9 % high on 16 nodes) and near the
// power law at n = 64 (the floor 21 % low), on the stored passes 4–11
// (docs/bench/prediction-passes.md). The factor is their geometric mean, which halves the
// larger error of either in logs: it centres the times (passes 12 and 13,
// out of sample), though the rankings it decides there are near-ties it
// got right as often as the power law alone. On a host whose cores the nodes share, a
// lockstep iteration waits at every node for the other nodes of its core
// to sweep, so it slows as the nodes per core grow, L falls and f rises
// with the node count, which the line in log₂ of the node count through
// the 2- and 4-node runs does not carry.

// fitHybridRounds fits α in f = L^−α (L ≥ 1) by least squares in logs
// through L = 1, f = 1 over the hybrid points with a sweeps-per-round
// figure: α = −Σ ln f · ln L / Σ (ln L)², at least 0. 0 without such a
// point, or where the traced rounds are as many as a synchronous run's
// iterations or more (f ≥ 1: the link between the clusters does not set
// their pace, and the law says nothing).
func fitHybridRounds(pts []FitPoint) float64 {
	var sxy, sxx float64
	for _, p := range pts {
		if !lawPoint(p) {
			continue
		}
		x := math.Log(p.Sweeps)
		sxy += x * math.Log(p.Measured)
		sxx += x * x
	}
	if sxx == 0 {
		return 0
	}
	return max(0, -sxy/sxx)
}

// fitHybridFloor fits f∞ in the floor f = 1/L + f∞ over the hybrid points
// with a sweeps-per-round figure: the mean of f − 1/L, at least 0.
func fitHybridFloor(pts []FitPoint) float64 {
	var xs []float64
	for _, p := range pts {
		if lawPoint(p) {
			xs = append(xs, p.Measured-1/p.Sweeps)
		}
	}
	return max(0, mean(xs))
}

// lawPoint says p is a traced hybrid run both laws are fitted on: one with
// more than one sweep per round and a measured factor.
func lawPoint(p FitPoint) bool {
	return p.Scheme == jobs.Hybrid && p.Sweeps > 1 && p.Measured > 0
}

// hybridRounds is the rounds factor for L sweeps per round (at least 1):
// the geometric mean of L^−α and min(1, 1/L + f∞); L^−α alone without a
// floor (f∞ = 0).
func hybridRounds(alpha, floor, sweeps float64) float64 {
	l := max(1, sweeps)
	law := math.Pow(l, -alpha)
	if floor <= 0 {
		return law
	}
	return math.Sqrt(law * min(1, 1/l+floor))
}

// hybridFactor is the rounds factor of a hybrid job whose slowest
// asynchronous link has the given round: hybridRounds of L, L the round
// over a lockstep iteration on nodes of the given points per core at the host's
// contention cont, s the CPU of a node's sweep and its sends
// (lockstepTurns); line, the factor of the line in log₂ of the node
// count, where α is 0 or no lockstep run was traced.
func (m *Model) hybridFactor(line, round, points, cont, s float64) float64 {
	if m.Staleness.HybridAlpha <= 0 {
		return line
	}
	l := m.lockstepSweeps(round, points, cont, s)
	if l <= 0 {
		return line
	}
	return hybridRounds(m.Staleness.HybridAlpha, m.Staleness.HybridFloor, l)
}

// lockstepSweeps is L for a hybrid job: the lockstep iterations a cluster
// does per round of the link between the clusters (see lockstepTurns); 0
// without a traced lockstep run.
func (m *Model) lockstepSweeps(round, points, cont, s float64) float64 {
	it := m.lockstepTurns(points, cont, s)
	if it <= 0 {
		return 0
	}
	return round / it
}

// farOutside is how far (a factor either way) a job's L may lie from the
// traced hybrid runs' range before the rounds law fitted on them counts as
// extrapolated (see cautions).
const farOutside = 4

// lockstepTurns is the time of one lockstep iteration of a hybrid cluster
// for the rounds factor: each traced lockstep run's (their mean) with its
// sweep scaled to the points per core, the rest of it as traced (the
// exchange with the cluster's neighbours, and for a rank next to the
// other cluster its sends over a link that may be saturated, which no
// core count changes), and the turns of the other nodes of a core: for
// every node per core more than in the traced run, one more node's sweep
// and sends, s. 0 without a traced lockstep run.
func (m *Model) lockstepTurns(points, cont, s float64) float64 {
	var xs []float64
	for _, l := range m.Lockstep {
		xs = append(xs, l.SweepSeconds*points/l.Points+(l.IterationSeconds-l.SweepSeconds)+max(0, cont-l.Contention)*s)
	}
	return mean(xs)
}

// fastestIteration is a traced run's time per iteration in the cluster
// that iterated fastest, a cluster of one node included (see clusterPace);
// 0 without iterations.
func fastestIteration(rec jobs.RunRecord) float64 {
	best := 0.0
	for _, cl := range clustersOf(rec) {
		if it, _ := clusterPace(cl); it > 0 && (best == 0 || it < best) {
			best = it
		}
	}
	return best
}
