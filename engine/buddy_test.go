package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
)

// TestPickBuddies: a part's buddy is in another cluster when there is
// one, the copies spread over that cluster's nodes, and a single cluster
// falls back to another group, then to the next rank.
func TestPickBuddies(t *testing.T) {
	ranks := []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}
	cluster := func(n string) string { return n[:1] }
	got := pickBuddies(ranks, cluster, func(int) int { return 0 }, nil)
	want := []string{"b1", "b2", "b3", "b4", "a1", "a2", "a3", "a4"}
	if !slices.Equal(got, want) {
		t.Fatalf("two clusters: %v, want %v", got, want)
	}
	one := func(string) string { return "c" }
	got = pickBuddies(ranks, one, func(r int) int { return r / 4 }, nil)
	for r, b := range got {
		if q := slices.Index(ranks, b); q/4 == r/4 {
			t.Errorf("rank %d's buddy %s is in its own group", r, b)
		}
	}
	got = pickBuddies(ranks[:3], one, func(int) int { return 0 }, nil)
	if !slices.Equal(got, []string{"a2", "a3", "a1"}) {
		t.Errorf("one group: %v, want the next rank", got)
	}
	second := []string{"a1", "a1#2", "a2"}
	got = pickBuddies(second, one, func(int) int { return 0 }, nil)
	if !slices.Equal(got, []string{"a2", "a2", "a1"}) {
		t.Errorf("a second worker: %v, want buddies on other hosts", got)
	}
	got = pickBuddies(second[:2], one, func(int) int { return 0 }, nil)
	if !slices.Equal(got, []string{"a1#2", "a1"}) {
		t.Errorf("one host: %v, want the other worker as the last resort", got)
	}
	if got := pickBuddies(ranks[:1], one, func(int) int { return 0 }, nil); got[0] != "" {
		t.Errorf("a job of one node has buddy %q", got[0])
	}
	// Two sites linked through gateways: a node reaches only its own
	// site's (the copies of a2 to b2 never arrived, and a2 reported none).
	site := func(a, b string) bool { return a[:1] == b[:1] }
	got = pickBuddies(ranks, cluster, func(r int) int { return r / 4 }, site)
	want = []string{"a2", "a3", "a4", "a1", "b2", "b3", "b4", "b1"}
	if !slices.Equal(got, want) {
		t.Errorf("two sites apart: %v, want %v", got, want)
	}
}

// TestCommonIteration: a synchronous rollback goes to the newest iteration
// every lost rank reported, counting for a surviving rank (whose status
// lags) every multiple of every up to its reach, and no further: a rank
// far from the lost one may not have swept the lost rank's newest.
func TestCommonIteration(t *testing.T) {
	cases := []struct {
		lists [][]uint64
		reach []uint64
		want  uint64
		ok    bool
	}{
		{[][]uint64{{100, 75, 50}, {100, 75}}, []uint64{99, 0}, 100, true},
		{[][]uint64{{75, 50}, {100, 75}}, []uint64{99, 0}, 75, true},           // the survivor had not swept 100
		{[][]uint64{{500, 475, 450}, {300, 275}}, []uint64{500, 0}, 300, true}, // the lost rank reported 300 last
		{[][]uint64{{500, 475, 450}, {300, 275}}, []uint64{0, 499}, 475, true}, // the survivor reached 499 only
		{[][]uint64{{500, 475}, {300, 275}}, []uint64{0, 0}, 0, false},
		{[][]uint64{{100, 75}, {90}}, []uint64{100, 0}, 0, false}, // 90 is no multiple: rank 0 never took it
		{[][]uint64{{75, 50}, {100, 50}}, []uint64{0, 100}, 75, true},
		{[][]uint64{{75, 50}, {100, 50}}, []uint64{0, 0}, 50, true}, // σ < ε: the survivor's reported copies only
		{nil, nil, 0, false},
	}
	for _, c := range cases {
		every := make([]interval, len(c.lists))
		for r := range every {
			every[r].every = 25
		}
		got, ok := commonIteration(c.lists, c.reach, every)
		if got != c.want || ok != c.ok {
			t.Errorf("%v reach %v: %d %v, want %d %v", c.lists, c.reach, got, ok, c.want, c.ok)
		}
	}
}

// TestCommonIterationChosen: under the default interval each rank counts
// only the multiples of the interval it reported choosing, after the
// iteration it chose it at; a rank that has not chosen yet holds only what
// it reported.
func TestCommonIterationChosen(t *testing.T) {
	cases := []struct {
		lists [][]uint64
		reach []uint64
		every []interval
		want  uint64
		ok    bool
	}{
		// Rank 1 chose 800 at 399: it took 200, 800, 1600; rank 0 (lost) 200, 1000, 1200, 1400.
		{[][]uint64{{1400, 1200, 1000, 200}, {800, 200}}, []uint64{0, 1500}, []interval{{200, 399}, {800, 399}}, 200, true},
		{[][]uint64{{1600, 1400, 1200, 200}, {800, 200}}, []uint64{0, 1700}, []interval{{200, 399}, {800, 399}}, 1600, true},
		// 800 is a multiple of 200 but rank 1 chose 800 only at 1199: it did not take 800.
		{[][]uint64{{1000, 800, 200}, {200}}, []uint64{0, 1100}, []interval{{200, 399}, {1000, 1199}}, 200, true},
		// Not chosen yet: only the reported copies.
		{[][]uint64{{800, 600, 200}, {200}}, []uint64{0, 900}, []interval{{200, 399}, {}}, 200, true},
		{[][]uint64{{800, 600}, {200}}, []uint64{0, 900}, []interval{{200, 399}, {}}, 0, false},
	}
	for _, c := range cases {
		got, ok := commonIteration(c.lists, c.reach, c.every)
		if got != c.want || ok != c.ok {
			t.Errorf("%v reach %v every %v: %d %v, want %d %v", c.lists, c.reach, c.every, got, ok, c.want, c.ok)
		}
	}
}

// TestReachOf: a surviving rank's reach is the lost rank's newest copy,
// or another rank's status, less their distance in the task's graph, or
// its own last status when that is further; a lost rank's is what the
// survivors' statuses say less two intervals (copies on their way to its
// buddy), and none when its copies fell behind (its buddy did not answer)
// or when a rank's last σ was below ε.
func TestReachOf(t *testing.T) {
	s := &submission{plan: &Plan{Ranks: []string{"a1", "a2", "a3", "a4"}, Edges: [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		statuses: make([]solve.NodeStatus, 4)}
	s.plan.Task.Eps = 1e-6
	s.statuses[1] = solve.NodeStatus{Iteration: 104, Sigma: 1}
	s.statuses[3] = solve.NodeStatus{Iteration: 220, Sigma: 1}
	lists := [][]uint64{{75}, {100, 75}, {75}, {100}}
	every := []interval{{25, 0}, {25, 0}, {25, 0}, {25, 0}}
	got := reachOf(s, []string{"a2"}, lists, every)
	// a4 at 220: a3 at 219, a2 at 218 (less 50: 168), a1 at 217.
	if want := []uint64{217, 168, 219, 220}; !slices.Equal(got, want) {
		t.Errorf("reach %v, want %v", got, want)
	}
	s.statuses[1].Iteration = 300 // its copies (100) fell behind its status
	if got := reachOf(s, []string{"a2"}, lists, every); got[1] != 0 {
		t.Errorf("a lost rank whose copies fell behind reaches %d, want 0", got[1])
	}
	s.statuses[3].Sigma = 1e-9
	if got := reachOf(s, []string{"a2"}, lists, every); got[3] != 0 {
		t.Errorf("a survivor below ε reaches %d, want 0", got[3])
	}
}

// TestMemoryPointBothLost: a part whose buddy was lost with it cannot be
// restored, and the reason names both nodes; a lost part whose buddy
// survives reads its copy there.
func TestMemoryPointBothLost(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "poisson", Resilience: jobs.Resilience{CheckpointEvery: 25}},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1", "b2"}},
		buddies:  []string{"b1", "b2", "a1", "a2"},
		ctrl:     map[string][]string{"b1": {"127.0.0.1:1"}},
		statuses: make([]solve.NodeStatus, 4)}
	for r := range s.statuses {
		s.statuses[r].Copies = []uint64{50, 25}
	}
	from, holders, err := memoryPoint(s, []string{"a1"}, true)
	if err != nil || from.Restore != 50 || len(holders[0]) != 1 || holders[0][0].Node != "b1" {
		t.Fatalf("one loss: %+v %v %v", from, holders, err)
	}
	_, _, err = memoryPoint(s, []string{"a1", "b1"}, true)
	if err == nil || !strings.Contains(err.Error(), "a1") || !strings.Contains(err.Error(), "b1") {
		t.Fatalf("a part and its only copy lost: %v, want both named", err)
	}
	s.statuses[3].NoCheckpoints = true
	if _, _, err = memoryPoint(s, []string{"a1"}, false); err == nil || !strings.Contains(err.Error(), "no checkpoints") {
		t.Fatalf("application without checkpoints: %v", err)
	}
}

// TestCommonIterationUnreported: the newest multiple of every rank's
// interval within its reach is a rollback point even when no rank's
// statuses named it yet (they lag, and thin out the older copies). Before,
// such ranks shared no reported copy and the run restarted from the start.
func TestCommonIterationUnreported(t *testing.T) {
	// Rank 1 (every 3200) reported only 9600, past rank 0's reach.
	lists := [][]uint64{{4000, 3800, 3600, 3400}, {9600}}
	every := []interval{{200, 0}, {3200, 0}}
	if got, ok := commonIteration(lists, []uint64{6500, 6500}, every); !ok || got != 6400 {
		t.Errorf("reach 6500 each: %d %v, want 6400 (a multiple of 3200 both took)", got, ok)
	}
	// A lost rank 0 whose copies fell behind (reach 0): its reported ones only.
	if got, ok := commonIteration(lists, []uint64{0, 7000}, every); ok {
		t.Errorf("rank 0 reaching nothing: %d, want no common iteration", got)
	}
	// An interval not known yet: only the reported copies.
	if _, ok := commonIteration(lists, []uint64{6500, 6500}, []interval{{200, 0}, {}}); ok {
		t.Error("rank 1's interval unknown: a common iteration was made up")
	}
	// Chosen at 6500: 6400 is no checkpoint of rank 1.
	if _, ok := commonIteration(lists, []uint64{6500, 6500}, []interval{{200, 0}, {3200, 6500}}); ok {
		t.Error("rank 1 chose its interval after 6400: a common iteration was made up")
	}
}

// TestRestoreFromDiskLostCommon: a synchronous run whose ranks' files on
// disk share no iteration fails saying so when every rank surely took a
// common one (the disk keeps each rank's newest few: a rank every 200
// holds no multiple of another's 3200), and restarts from the start only
// before any common one was taken (errNoCommonCheckpoint). Before, it
// restarted from the start in both cases, its record saying no checkpoint.
func TestRestoreFromDiskLostCommon(t *testing.T) {
	dir := t.TempDir()
	d := checkpoint.Dir{Path: dir, Keep: solve.KeepCheckpoints}
	save := func(r int, its ...uint64) {
		for _, it := range its {
			if _, err := d.Save(checkpoint.Header{Run: "k", Rank: r, Ranks: 2, Iteration: it}, []byte("state")); err != nil {
				t.Fatal(err)
			}
		}
	}
	save(0, 3400, 3600, 3800, 4000)
	save(1, 3200)
	rc := &recoverer{spec: jobs.Spec{Scheme: jobs.Synchronous}, dir: dir, key: "k"}
	s := &submission{plan: &Plan{Ranks: []string{"a1", "b1"}}, statuses: make([]solve.NodeStatus, 2)}
	s.plan.Task.Eps = 1e-9
	s.statuses[0] = solve.NodeStatus{Iteration: 4000, Sigma: 1, CheckpointEvery: 200}
	s.statuses[1] = solve.NodeStatus{Iteration: 4000, Sigma: 1, CheckpointEvery: 3200}
	_, _, err := rc.restoreFrom(s, []string{"a1"})
	if err == nil || errors.Is(err, errNoCommonCheckpoint) || !strings.Contains(err.Error(), "3200") {
		t.Fatalf("common 3200 taken, its files gone: %v, want a failure naming 3200 (not a restart from the start)", err)
	}
	// Rank 1 has not reached 3200 by its statuses: no common one yet.
	s.statuses[1].Iteration = 3100
	if _, _, err = rc.restoreFrom(s, []string{"a1"}); !errors.Is(err, errNoCommonCheckpoint) {
		t.Fatalf("before the first common checkpoint: %v, want errNoCommonCheckpoint (from the start)", err)
	}
	// An interval not known yet (no status said it): the same.
	s.statuses[1].Iteration, s.statuses[1].CheckpointEvery = 4000, 0
	if _, _, err = rc.restoreFrom(s, []string{"a1"}); !errors.Is(err, errNoCommonCheckpoint) {
		t.Fatalf("interval unknown: %v, want errNoCommonCheckpoint", err)
	}
}

// TestMemoryPointLostTogether: a lost coordinator takes its group, and
// with it a member's buddy in that group (the only kind a site behind a
// gateway may offer): the part's copies are gone as if it had none. A
// synchronous run then restarts from the start (errNoCheckpointYet,
// which Run turns into a restart) rather than fail; an asynchronous one
// restarts that part alone from the start (OrStart), the others from
// their newest. Two separate losses still fail naming both nodes.
func TestMemoryPointLostTogether(t *testing.T) {
	mk := func() *submission {
		s := &submission{spec: jobs.Spec{App: "poisson", Scheme: jobs.Asynchronous, Resilience: jobs.Resilience{CheckpointEvery: 25}},
			plan: &Plan{Ranks: []string{"a1", "a2", "b1", "b2"},
				Groups: []jobs.Group{{Coordinator: "a1", Workers: []string{"a1", "a2"}}, {Coordinator: "b1", Workers: []string{"b1", "b2"}}}},
			buddies:  []string{"a2", "a1", "b2", "b1"},
			ctrl:     map[string][]string{},
			statuses: make([]solve.NodeStatus, 4),
			failed:   &worker.Failure{Node: "a1"}}
		for r := range s.statuses {
			s.statuses[r].Copies = []uint64{50, 25}
		}
		return s
	}
	if _, _, err := memoryPoint(mk(), []string{"a1", "a2"}, true); !errors.Is(err, errNoCheckpointYet) {
		t.Errorf("synchronous, a coordinator and its group lost: %v, want errNoCheckpointYet (a restart from the start)", err)
	}
	from, _, err := memoryPoint(mk(), []string{"a1", "a2"}, false)
	if err != nil || !slices.Contains(from.OrStart, 0) || !slices.Contains(from.OrStart, 1) || slices.Contains(from.OrStart, 2) {
		t.Errorf("asynchronous, a coordinator and its group lost: %+v %v, want ranks 0 and 1 from the start, the others not", from, err)
	}
	s := mk()
	s.failed = &worker.Failure{Node: "a2"} // a member lost, then its coordinator by a second loss
	if _, _, err := memoryPoint(s, []string{"a1", "a2"}, true); err == nil || !strings.Contains(err.Error(), "both lost") {
		t.Errorf("two losses taking a part and its copy: %v, want the run to fail naming both", err)
	}
}
