package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// counterWatch follows each part's iteration counter in the telemetry and
// notes every time it went back without the part having restarted from a
// checkpoint past it.
type counterWatch struct {
	mu    sync.Mutex
	high  map[int]int
	from  map[int]uint64
	backs map[int][]string
}

func newCounterWatch() *counterWatch {
	return &counterWatch{high: map[int]int{}, from: map[int]uint64{}, backs: map[int][]string{}}
}

// see takes one snapshot's statuses.
func (w *counterWatch) see(s Snapshot) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, st := range s.Nodes {
		if st.Iteration == 0 {
			continue
		}
		r := st.Rank
		// A recovered attempt's statuses say where the part restarted:
		// never before the last iteration seen of it.
		if st.Restored != w.from[r] && st.Restored < uint64(w.high[r]) {
			w.backs[r] = append(w.backs[r], fmt.Sprintf("rank %d (%s) was at %d, restarted at %d", r, st.Node, w.high[r], st.Restored))
		}
		if st.Iteration < w.high[r] && st.Restored == w.from[r] {
			w.backs[r] = append(w.backs[r], fmt.Sprintf("rank %d (%s) %d → %d", r, st.Node, w.high[r], st.Iteration))
		}
		w.from[r] = st.Restored
		w.high[r] = max(w.high[r], st.Iteration)
	}
}

// back lists the survivors' steps back: those of the parts no recovery of
// rs moved.
func (w *counterWatch) back(rs []jobs.Recovery) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for r, b := range w.backs {
		if !slices.ContainsFunc(rs, func(rc jobs.Recovery) bool { return rc.Rank == r }) {
			out = append(out, b...)
		}
	}
	slices.Sort(out)
	return out
}

// TestCounterWatch: a survivor whose counter goes back is named, a moved
// part (restarted from its checkpoint) is not, and a survivor that starts
// a new attempt where it stood is not.
func TestCounterWatch(t *testing.T) {
	w := newCounterWatch()
	snap := func(its ...int) Snapshot {
		var s Snapshot
		for r, it := range its {
			s.Nodes = append(s.Nodes, solve.NodeStatus{Node: fmt.Sprint("n", r), Rank: r, Iteration: it})
		}
		return s
	}
	w.see(snap(500, 510, 505))
	s := snap(520, 200, 530) // rank 1 moved, restored from 200
	s.Nodes[1].Restored = 200
	s.Nodes[0].Restored = 515 // rank 0 a new attempt where it stood
	w.see(s)
	if b := w.back([]jobs.Recovery{{Rank: 1}}); len(b) != 0 {
		t.Fatalf("back %v, want none", b)
	}
	s = snap(520, 210, 400) // rank 2 went back
	s.Nodes[1].Restored, s.Nodes[0].Restored = 200, 515
	w.see(s)
	if b := w.back([]jobs.Recovery{{Rank: 1}}); len(b) != 1 || !strings.Contains(b[0], "rank 2") {
		t.Fatalf("back %v, want rank 2's step back", b)
	}
	if b := w.back(nil); len(b) != 3 {
		t.Fatalf("back %v, want rank 1's restart and step and rank 2's step", b)
	}
}

// checkSameOutputs compares a synchronous recovered run's raw solution
// files with the undisturbed run's, byte for byte.
func checkSameOutputs(t *testing.T, rep, want *Report) {
	t.Helper()
	raws := func(r *Report) []string {
		var out []string
		for _, o := range r.Outputs {
			if strings.HasSuffix(o, ".raw") {
				out = append(out, o)
			}
		}
		return out
	}
	got, w := raws(rep), raws(want)
	if len(got) == 0 || len(got) != len(w) {
		t.Fatalf("raw outputs %v, undisturbed %v", got, w)
	}
	for i := range got {
		a, err := os.ReadFile(got[i])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(w[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("solution %s differs from the undisturbed run's (%d and %d bytes)", got[i], len(a), len(b))
		}
	}
}

// checkSameFigures compares every figure and check (value and text) and
// the true residual bit for bit: poisson's sum of u, heat's, obstacle's
// complementarity.
func checkSameFigures(t *testing.T, rep, want *Report) {
	t.Helper()
	if len(want.Figures)+len(want.Checks) == 0 || len(rep.Figures) != len(want.Figures) || len(rep.Checks) != len(want.Checks) {
		t.Errorf("figures %+v and checks %+v, undisturbed %+v and %+v", rep.Figures, rep.Checks, want.Figures, want.Checks)
		return
	}
	same := func(name string, v float64, text, wname string, wv float64, wtext string) {
		if name != wname || math.Float64bits(v) != math.Float64bits(wv) || text != wtext {
			t.Errorf("%s: %v (%s), undisturbed %s: %v (%s)", name, v, text, wname, wv, wtext)
		}
	}
	for i, f := range rep.Figures {
		u := want.Figures[i]
		same(f.Name, f.Value, f.Text, u.Name, u.Value, u.Text)
	}
	for i, c := range rep.Checks {
		u := want.Checks[i]
		same(c.Name, c.Value, c.Text, u.Name, u.Value, u.Text)
	}
	if math.Float64bits(rep.Residual) != math.Float64bits(want.Residual) {
		t.Errorf("true residual %g, undisturbed %g", rep.Residual, want.Residual)
	}
}

// TestRunRecoversBeforeFirstCheckpoint: a coordinator killed before the
// first checkpoint (here at iteration 100000, past the run's end) restarts
// every part from the start; the synchronous run is still bit for bit the
// undisturbed one. Before, the run failed "not recovered: rank 4 has no
// checkpoint yet".
func TestRunRecoversBeforeFirstCheckpoint(t *testing.T) {
	// A run of a few seconds: at n = 24 it lasted about 1 s, and the kill,
	// sent once a snapshot shows every node past iteration 20, came at
	// times after the parts were done (ok, no recovery to test).
	spec := recoverySpec(jobs.Synchronous, 40, "1e-9")
	spec.Resilience.CheckpointEvery = 100000
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("undisturbed: %d iterations in %v", want.Nodes[0].Iterations, want.Wall)
	rep, _, err := runKilled(t, spec, "beta-1", 20)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecoveredFrom(t, rep, want, "beta-1", true)
	if rc := rep.Recoveries[0]; rc.From != 0 {
		t.Errorf("recovery %+v: want every part from the start", rc)
	}
}

// TestMemoryPointNoneYet: in a synchronous run a rank without a checkpoint
// yet makes the restart one from the start (errNoCheckpointYet), unless a
// part and its buddy, with its checkpoints, were lost together: that fails
// naming both. An asynchronous run restarts only the parts without one
// from the start (OrStart), never failing for it; a hybrid one the
// clusters that lost a part and share no checkpoint (Rollback 0).
func TestMemoryPointNoneYet(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "poisson", Scheme: jobs.Synchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1", "b2"}},
		buddies:  []string{"b1", "b2", "a1", "a2"},
		statuses: make([]solve.NodeStatus, 4)}
	s.statuses[3].Copies = []uint64{200}
	if _, _, err := memoryPoint(s, []string{"a2"}, true); !errors.Is(err, errNoCheckpointYet) || !strings.Contains(err.Error(), "rank 0 (a1)") {
		t.Fatalf("sync: %v, want no checkpoint yet, naming rank 0", err)
	}
	s.spec.Scheme = jobs.Asynchronous
	from, _, err := memoryPoint(s, []string{"a1", "b1"}, false) // a part without a checkpoint and its buddy: nothing lost
	if err != nil || !from.Latest || !slices.Equal(from.OrStart, []int{0, 1, 2}) {
		t.Fatalf("async: %+v %v, want ranks 0 to 2 from the start, 3 from its newest", from, err)
	}
	// Hybrid (clusters a and b): both clusters lost a part, and each has
	// a part without a checkpoint: both from the start.
	s.spec.Scheme = jobs.Hybrid
	s.plan.Edges, s.plan.Modes = [][2]int{{0, 1}, {1, 2}, {2, 3}}, []rmnp.Mode{rmnp.Sync, rmnp.Async, rmnp.Sync}
	from, _, err = memoryPoint(s, []string{"a1", "b1"}, false)
	if err != nil || !from.Latest || !maps.Equal(from.Rollback, map[int]uint64{0: 0, 1: 0, 2: 0, 3: 0}) {
		t.Fatalf("hybrid: %+v %v, want both clusters from the start", from, err)
	}
	s.plan.Edges, s.plan.Modes = nil, nil
	s.spec.Scheme = jobs.Synchronous
	s.statuses[0].Copies = []uint64{200}
	if _, _, err := memoryPoint(s, []string{"a1", "b1"}, true); errors.Is(err, errNoCheckpointYet) || err == nil || !strings.Contains(err.Error(), "both lost") {
		t.Fatalf("a part and its buddy lost: %v, want both named", err)
	}
}

// TestMemoryPointLostBeforeFirst: an asynchronous run that lost a
// part before its first checkpoint restarts only that part from the start
// (OrStart, no holder to read from) and every survivor from its newest
// checkpoint (with its holders); every part in the run's first step
// (StepFrom all 0). A survivor without a checkpoint of an asynchronous run
// resumes where it stopped, which does not move the others to the start.
// Before, every part restarted from the start (errNoCheckpointYet).
func TestMemoryPointLostBeforeFirst(t *testing.T) {
	for _, scheme := range []jobs.Scheme{jobs.Asynchronous} { // hybrid: TestClusterPointLostBeforeFirst
		s := &submission{spec: jobs.Spec{App: "poisson", Scheme: scheme},
			plan:     &Plan{Ranks: []string{"a1", "a2", "b1", "b2"}},
			buddies:  []string{"b1", "b2", "a1", "a2"},
			ctrl:     map[string][]string{"a1": {"127.0.0.1:1"}, "b1": {"127.0.0.1:2"}, "b2": {"127.0.0.1:3"}},
			statuses: make([]solve.NodeStatus, 4)}
		for _, r := range []int{0, 2, 3} {
			s.statuses[r].Copies = []uint64{400, 200}
		}
		from, holders, err := memoryPoint(s, []string{"a2"}, false)
		if err != nil {
			t.Fatalf("%s: %v, want a plan", scheme, err)
		}
		if !from.Latest || from.Restore != 0 || !slices.Equal(from.OrStart, []int{1}) || len(from.StepFrom) != 4 || slices.Max(from.StepFrom) != 0 {
			t.Errorf("%s: %+v, want each part's newest, rank 1 from the start, all in the first step", scheme, from)
		}
		if len(holders[1]) != 0 || len(holders[0]) != 1 || holders[0][0].Node != "b1" {
			t.Errorf("%s: holders %v, want none for rank 1 (from the start, as its record says), b1 for rank 0", scheme, holders)
		}
		s.statuses[1].Copies, s.statuses[3].Copies = []uint64{400}, nil // a survivor without one
		from, _, err = memoryPoint(s, []string{"a2"}, false)
		if err != nil || !slices.Equal(from.OrStart, []int{3}) || from.StepFrom != nil {
			t.Errorf("async survivor without a checkpoint: %+v %v, want it where it stopped, no step forced", from, err)
		}
	}
}

// TestRestorePointOrStart: from disk alone, a rank without a checkpoint
// fails a synchronous restore point and a resume's (errNoCheckpointYet),
// while an asynchronous or hybrid recovery restarts that rank from the
// start (OrStart), every part in the run's first step.
func TestRestorePointOrStart(t *testing.T) {
	dir := t.TempDir()
	d := checkpoint.Dir{Path: dir, Keep: solve.KeepCheckpoints}
	for _, r := range []int{0, 2} {
		if _, err := d.Save(checkpoint.Header{Run: "k", Rank: r, Ranks: 3, Iteration: 400}, []byte("state")); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ sync, orStart bool }{{true, true}, {true, false}, {false, false}} {
		if _, err := restorePoint(dir, "k", 3, c.sync, c.orStart); !errors.Is(err, errNoCheckpointYet) || !strings.Contains(err.Error(), "rank 1") {
			t.Errorf("sync %v, orStart %v: %v, want rank 1 named with no checkpoint yet", c.sync, c.orStart, err)
		}
	}
	from, err := restorePoint(dir, "k", 3, false, true)
	if err != nil || !from.Latest || !slices.Equal(from.OrStart, []int{1}) || len(from.StepFrom) != 3 || from.Step != 0 {
		t.Errorf("async: %+v %v, want each part's newest, rank 1 from the start", from, err)
	}
}

// TestMemoryPointNoCommonYet: synchronous ranks whose first checkpoints
// are at different multiples (one chose the next power of 2) hold no
// common iteration until the larger: the error says so
// (errNoCommonCheckpoint), which restarts the run from the start rather
// than failing it; once the larger is held, it is the rollback's.
func TestMemoryPointNoCommonYet(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "poisson"},
		plan:     &Plan{Ranks: []string{"a1", "a2"}, Task: gridapp.Task{Eps: 1e-9}},
		buddies:  []string{"a2", "a1"},
		statuses: make([]solve.NodeStatus, 2)}
	s.statuses[0].Copies, s.statuses[1].Copies = []uint64{6400}, []uint64{12800}
	s.statuses[0].Iteration, s.statuses[1].Iteration = 12000, 13000
	s.statuses[0].Sigma, s.statuses[1].Sigma = 1, 1
	_, _, err := memoryPoint(s, []string{"a2"}, true)
	if !errors.Is(err, errNoCommonCheckpoint) {
		t.Fatalf("%v, want no checkpoint of a common iteration", err)
	}
	s.statuses[0].Copies = []uint64{12800, 6400}
	s.statuses[0].Iteration = 13000
	if from, _, err := memoryPoint(s, []string{"a2"}, true); err != nil || from.Restore != 12800 {
		t.Fatalf("restore %d, %v: want 12800", from.Restore, err)
	}
}
