package engine

import (
	"fmt"
	"slices"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// A hybrid run is synchronous inside a cluster and asynchronous between
// clusters (Plan.Modes). On a loss in a task of one step, the lost part's
// cluster — the parts linked to it by synchronous links, transitively —
// rolls back as a synchronous run does, to the newest iteration every part
// of it holds a checkpoint of, and the parts of every other cluster resume
// where they stopped (solve's lastCheckpoint), as asynchronous survivors:
// to them the rolled-back cluster is a long delay, which asynchronous
// iterations tolerate. A cluster whose parts share no checkpoint restarts
// from the start. Tasks of several steps keep every part in one step
// (stepPoint) instead.

// syncClusters numbers each rank's cluster in the hybrid sense: the ranks
// linked to it by synchronous links, transitively, named by the least
// rank among them.
func syncClusters(p *Plan) []int {
	c := make([]int, len(p.Ranks))
	for r := range c {
		c[r] = r
	}
	root := func(r int) int {
		for c[r] != r {
			c[r] = c[c[r]]
			r = c[r]
		}
		return r
	}
	for _, e := range syncEdges(p) {
		a, b := root(e[0]), root(e[1])
		c[max(a, b)] = min(a, b)
	}
	for r := range c {
		c[r] = root(r)
	}
	return c
}

// syncEdges are the plan's edges whose link is synchronous (both ends in
// the plan's ranks).
func syncEdges(p *Plan) [][2]int {
	var out [][2]int
	for i, e := range p.Edges {
		if i < len(p.Modes) && p.Modes[i] == rmnp.Sync && e[0] < len(p.Ranks) && e[1] < len(p.Ranks) {
			out = append(out, e)
		}
	}
	return out
}

// clusterPoint is the restore point of a hybrid attempt of one step after
// the loss of gone: each cluster holding a part of gone rolls back to its
// clusterIteration (Rollback, 0: from the start); every other part
// restores its newest, a survivor its state where it stopped, and one
// that reported no checkpoint (OrStart) the start when it finds none. A
// lost part that reported no copy counts the one its holders keep (held,
// askHeld: a copy can reach the buddy before a status says so).
func clusterPoint(s *submission, gone []string, held map[int]checkpoint.Header) solve.CheckpointPlan {
	from := solve.CheckpointPlan{Latest: true}
	cl := syncClusters(s.plan)
	var lost []int
	for r, name := range s.plan.Ranks {
		if slices.Contains(gone, name) && !slices.Contains(lost, cl[r]) {
			lost = append(lost, cl[r])
		}
	}
	every := takenEvery(s)
	for _, c := range lost {
		var members []int
		for r := range s.plan.Ranks {
			if cl[r] == c {
				members = append(members, r)
			}
		}
		k := clusterIteration(s, gone, members, every, held)
		if from.Rollback == nil {
			from.Rollback = map[int]uint64{}
		}
		for _, r := range members {
			from.Rollback[r] = k
		}
	}
	for r := range s.plan.Ranks {
		if _, back := from.Rollback[r]; !back && len(s.statuses[r].Copies) == 0 {
			from.OrStart = append(from.OrStart, r)
		}
	}
	return from
}

// clusterIteration is the synchronous rule (commonIteration) restricted to
// the cluster's members: the newest iteration each of them reported a
// copy of (or its holders said they keep, held: newer than the lagging
// statuses) or surely took by its interval, up to its reach over the
// cluster's synchronous links (lockstep partners are never more than one
// iteration apart); 0 when they share none.
func clusterIteration(s *submission, gone []string, members []int, every []interval, held map[int]checkpoint.Header) uint64 {
	lists := withHeld(s, held)
	reach := reachIn(s, gone, lists, every, syncEdges(s.plan))
	var ml [][]uint64
	var mr []uint64
	var me []interval
	for _, r := range members {
		ml, mr, me = append(ml, lists[r]), append(mr, reach[r]), append(me, every[r])
	}
	k, ok := commonIteration(ml, mr, me)
	if !ok {
		return 0
	}
	return k
}

// rollbackCluster is the sorted ranks of rank's cluster (from.Rollback).
func rollbackCluster(from solve.CheckpointPlan, rank int, p *Plan) []int {
	cl := syncClusters(p)
	var out []int
	for r := range from.Rollback {
		if rank >= 0 && rank < len(cl) && cl[r] == cl[rank] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// rollbackText says rec's rollback for the event log.
func rollbackText(rec jobs.Recovery) string {
	if rec.FromStart {
		return fmt.Sprintf("its cluster (ranks %s) from the start (no checkpoint of an iteration common to its parts), the other parts where they stopped", ranksText(rec.Cluster))
	}
	return fmt.Sprintf("its cluster (ranks %s) rolled back to iteration %d, the other parts where they stopped", ranksText(rec.Cluster), rec.From)
}
