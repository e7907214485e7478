package engine

import (
	"maps"
	"slices"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// hybridSubmission is a hybrid run of two clusters of four ranks, a1–a4
// (ranks 0–3) and b1–b4 (4–7), each a chain of synchronous links, the two
// linked asynchronously (3–4 and 0–4), checkpointing every 100
// iterations; every part at iteration 1050, not converged.
func hybridSubmission() *submission {
	ranks := []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}
	s := &submission{spec: jobs.Spec{App: "poisson", Scheme: jobs.Hybrid, Resilience: jobs.Resilience{CheckpointEvery: 100}},
		plan: &Plan{Ranks: ranks, Task: gridapp.Task{Eps: 1e-9},
			Edges: [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {4, 5}, {5, 6}, {6, 7}},
			Modes: []rmnp.Mode{rmnp.Sync, rmnp.Sync, rmnp.Sync, rmnp.Async, rmnp.Async, rmnp.Sync, rmnp.Sync, rmnp.Sync}},
		buddies:  []string{"b1", "b2", "b3", "b4", "a1", "a2", "a3", "a4"},
		statuses: make([]solve.NodeStatus, len(ranks))}
	for r := range s.statuses {
		s.statuses[r] = solve.NodeStatus{Rank: r, Iteration: 1050, Sigma: 1, Copies: []uint64{1000, 900}}
	}
	return s
}

// TestSyncClusters: a hybrid plan's clusters are its ranks linked
// synchronously, transitively, each named by its least rank.
func TestSyncClusters(t *testing.T) {
	s := hybridSubmission()
	if got := syncClusters(s.plan); !slices.Equal(got, []int{0, 0, 0, 0, 4, 4, 4, 4}) {
		t.Fatalf("clusters %v, want 0–3 and 4–7", got)
	}
	s.plan.Modes[5] = rmnp.Async // 4–5 asynchronous: b1 alone
	if got := syncClusters(s.plan); !slices.Equal(got, []int{0, 0, 0, 0, 4, 5, 5, 5}) {
		t.Fatalf("clusters %v, want 0–3, 4, 5–7", got)
	}
}

// TestClusterPoint: the loss of a2 rolls back cluster a alone, every part
// of it to the newest iteration they all hold (a2's buddy lacks its
// newest copy, 1000: 900), and leaves cluster b where it stopped (Latest,
// no rollback); each rank's plan then says so (rankCheckpoint). A cluster
// whose parts share no checkpoint restarts from the start; a survivor of
// another cluster without one restores its state where it stopped, else
// the start (OrStart). A task of several steps keeps every part in one
// step (stepPoint): no rollback.
func TestClusterPoint(t *testing.T) {
	s := hybridSubmission()
	s.statuses[1].Copies = []uint64{900, 800} // its newest copy not reported yet
	from, holders, err := memoryPoint(s, []string{"a2"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !from.Latest || !maps.Equal(from.Rollback, map[int]uint64{0: 900, 1: 900, 2: 900, 3: 900}) || len(from.OrStart) != 0 {
		t.Fatalf("%+v, want cluster a (ranks 0–3) at 900, cluster b where it stopped", from)
	}
	if len(holders[1]) != 1 || holders[1][0].Node != "b2" {
		t.Errorf("holders of rank 1: %v, want its buddy b2", holders[1])
	}
	s.ckpt = &from
	for r := range s.plan.Ranks {
		cp := s.rankCheckpoint(r)
		back := r < 4
		if cp.Latest == back || back && cp.Restore != 900 || cp.Rollback != nil {
			t.Errorf("rank %d's plan %+v: want rolled back to 900 %v, else its newest", r, cp, back)
		}
	}
	s.ckpt = nil // no holders to ask (askHeld)

	// A coordinator of b lost with its members: b rolls back, not a.
	from, _, err = memoryPoint(s, []string{"b1", "b2", "b3", "b4"}, false)
	if err != nil || !maps.Equal(from.Rollback, map[int]uint64{4: 1000, 5: 1000, 6: 1000, 7: 1000}) {
		t.Fatalf("b lost: %+v %v, want cluster b at 1000 (its parts' newest), a where it stopped", from, err)
	}

	// No checkpoint common to a's parts (a3 reported none yet, and its
	// interval is its own choice, not reported yet either): a from the
	// start; b4 without one restores where it stopped, else the start.
	s.spec.Resilience.CheckpointEvery = 0
	s.statuses[2].Copies, s.statuses[7].Copies = nil, nil
	from, holders, err = memoryPoint(s, []string{"a2"}, false)
	if err != nil || !maps.Equal(from.Rollback, map[int]uint64{0: 0, 1: 0, 2: 0, 3: 0}) || !slices.Equal(from.OrStart, []int{7}) {
		t.Fatalf("none common: %+v %v, want cluster a from the start, rank 7 OrStart", from, err)
	}
	if len(holders[1]) != 0 {
		t.Errorf("holders of rank 1 %v, want none (from the start)", holders[1])
	}

	// a2's holder keeps a copy its statuses did not report (askHeld),
	// and a3's interval is known again: a rolls back to it.
	s.statuses[1].Copies, s.statuses[2].Copies = nil, []uint64{1000, 900}
	if from = clusterPoint(s, []string{"a2"}, map[int]checkpoint.Header{1: {Rank: 1, Iteration: 900}}); !maps.Equal(from.Rollback, map[int]uint64{0: 900, 1: 900, 2: 900, 3: 900}) {
		t.Fatalf("held: %+v, want cluster a at 900, the copy a2's holder keeps", from)
	}
	if from = clusterPoint(s, []string{"a2"}, nil); !maps.Equal(from.Rollback, map[int]uint64{0: 0, 1: 0, 2: 0, 3: 0}) {
		t.Fatalf("none held: %+v, want cluster a from the start", from)
	}

	// Several steps: today's rule, every part in one step.
	s.plan.Task.Steps = 3
	if from, _, err = memoryPoint(s, []string{"a2"}, false); err != nil || from.Rollback != nil || !from.Latest {
		t.Fatalf("steps: %+v %v, want no rollback", from, err)
	}
}

// TestClusterIterationReach: within a cluster a survivor counts the
// multiples of its interval up to its reach over the cluster's
// synchronous links only; a part of another cluster, however far ahead,
// lifts no member's reach (an asynchronous link bounds nothing).
func TestClusterIterationReach(t *testing.T) {
	s := hybridSubmission()
	for r := range 4 {
		s.statuses[r].Copies, s.statuses[r].Iteration = []uint64{600}, 650
	}
	for r := 4; r < 8; r++ {
		s.statuses[r].Iteration = 5000
	}
	s.statuses[0].Copies = []uint64{600, 500} // the lost one: its copies kept pace
	every := takenEvery(s)
	if k := clusterIteration(s, []string{"a1"}, []int{0, 1, 2, 3}, every, nil); k != 600 {
		t.Fatalf("rollback %d, want 600: b's progress must not count", k)
	}
}

// TestClusterIterationHeld: a lost coordinator's cluster's statuses lag
// (copies 400, 200, iteration 450) while its members hold 1000 (askHeld):
// the cluster rolls back to 1000, not to 400. Before, what the holders
// said counted only for a part that reported no copy at all.
func TestClusterIterationHeld(t *testing.T) {
	s := hybridSubmission()
	held := map[int]checkpoint.Header{}
	for r := range 4 {
		s.statuses[r].Copies, s.statuses[r].Iteration = []uint64{400, 200}, 450
		held[r] = checkpoint.Header{Rank: r, Iteration: 1000}
	}
	every := takenEvery(s)
	if k := clusterIteration(s, []string{"a1"}, []int{0, 1, 2, 3}, every, nil); k != 400 {
		t.Fatalf("by the statuses alone: rollback %d, want 400", k)
	}
	if k := clusterIteration(s, []string{"a1"}, []int{0, 1, 2, 3}, every, held); k != 1000 {
		t.Fatalf("every member holds 1000: rollback %d, want 1000", k)
	}
	// Rank 2's node did not answer: it counts as its statuses say, with
	// the reach its neighbours' copies vouch for (998: lockstep), and the
	// lost one's reach is its newest copy less two intervals: 800.
	delete(held, 2)
	if k := clusterIteration(s, []string{"a1"}, []int{0, 1, 2, 3}, every, held); k != 800 {
		t.Fatalf("rank 2 unasked: rollback %d, want 800", k)
	}
}
