package predict

import "github.com/gridtui/gridtui/jobs"

// This file holds the second part of an asynchronous round: the time an
// update takes to reach the slowest asynchronous link from the node
// farthest from it, hop by hop, when the nodes share a host's cores.
//
// An asynchronous run converges as fast as updates cross the grid. Where
// the link between the clusters is the bottleneck, each update it carries
// must first have crossed its cluster: at every hop the next node takes it
// in only when it next sweeps. On cores of its own a node sweeps again at
// once, as in a synchronous iteration, which the rounds already count; on
// a host whose cores its nodes share it sweeps again only after the other
// nodes on its core have had their turn. That wait grows with the nodes
// per core and the hops with the nodes per cluster, both with the node
// count, so the rounds that the 2- and 4-node runs show do not carry it.
// Nor do they show a cluster too long to settle within a round: a fast
// link brings the next update before the last has spread (unsettled).

// crossing is (hops + unsettled) · wait · share for an asynchronous job:
// hops the greatest distance in the neighbour graph from a node to the
// nearer end of the slowest asynchronous link (see round), wait the time
// the other nodes sharing a core take for their sweeps and sends, (c − 1)
// times a node's (sweepCPU), c the nodes per core (the replay's sharing, at
// least 1), and share how far that link rather than its sender's sweeps
// sets its pace (linkShare). 0 on cores of their own, for a synchronous or
// hybrid job (a hybrid run's clusters sweep in lockstep: their crossing is
// in the lockstep term) and without an asynchronous link.
//
// unsettled is the turns (waits) a cluster still needs, when the round
// ends, to take in the update before: a relaxation spreads a change over d
// hops in about d² sweeps, so the clusters settle in the mean over all
// the nodes of their squared distance to the link (settle; 17.5 turns for
// 8 + 8 nodes in a chain), and a round of fewer turns leaves the
// difference to the next. On a slow link a round holds far more turns
// than that and unsettled is 0; on a fast link with long clusters it is a
// large part of the crossing (docs/bench/prediction-passes.md, "After pass 19").
func (r *replay) crossing(m *Model, scheme jobs.Scheme, ends []float64) float64 {
	if scheme != jobs.Asynchronous || r.cont <= 1 {
		return 0
	}
	from, to, ok := r.slowestLink(ends)
	if !ok {
		return 0
	}
	wait := (r.cont - 1) * r.sweepCPU(m, scheme)
	hops, settle := r.distances(from, to)
	unsettled := 0.0
	if wait > 0 {
		unsettled = max(0, settle-r.round(ends)/wait)
	}
	return (float64(hops) + unsettled) * wait * r.linkShare(from, to)
}

// linkShare is how far the link from → to, rather than its sender's
// sweeps, sets the pace of its updates: 1 − sweep/message, 0 to 1, the
// sender's replayed sweep against one message's time on the link. Where
// the sweeps set it they already run at the pace the shared cores allow
// and the rounds count the hops as a synchronous run's iterations do;
// only a link slower than a sweep leaves the crossing out of its round.
func (r *replay) linkShare(from, to int) float64 {
	for _, ed := range r.out[from] {
		if ed.to == to {
			if msg := ed.transfer + ed.latency; msg > 0 {
				return min(1, max(0, 1-r.sweep[from]/msg))
			}
		}
	}
	return 0
}

// slowestLink is the asynchronous edge whose updates were the furthest
// apart in the replay (the one round measures), of two as far apart the
// one whose transfer is slower (a node sends over all its links at the
// pace of its slowest); ok is false without one.
func (r *replay) slowestLink(ends []float64) (from, to int, ok bool) {
	worst, slow := 0.0, 0.0
	for i := range r.out {
		for _, ed := range r.out[i] {
			if !ed.async || ed.updates == 0 {
				continue
			}
			gap := ends[i] / float64(ed.updates)
			if !ok || gap > worst*(1+1e-9) || gap >= worst*(1-1e-9) && ed.transfer > slow {
				worst, slow, from, to, ok = max(worst, gap), ed.transfer, i, ed.to, true
			}
		}
	}
	return from, to, ok
}

// distances measures the replay's neighbour graph from the nearer of a and
// b (breadth first from both): hops the greatest distance of a node, and
// settle the mean over the nodes of their squared distance; a node that
// cannot reach either does not count.
func (r *replay) distances(a, b int) (hops int, settle float64) {
	dist := make([]int, len(r.out))
	for i := range dist {
		dist[i] = -1
	}
	dist[a], dist[b] = 0, 0
	queue := []int{a, b}
	sum := 0
	for head := 0; head < len(queue); head++ {
		i := queue[head]
		hops = max(hops, dist[i])
		sum += dist[i] * dist[i]
		for _, ed := range r.out[i] {
			if dist[ed.to] < 0 {
				dist[ed.to] = dist[i] + 1
				queue = append(queue, ed.to)
			}
		}
	}
	return hops, float64(sum) / float64(len(queue))
}
