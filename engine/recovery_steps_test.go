package engine

import (
	"slices"
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
			// Asynchronous survivors resume where they stood, never at
			// their step's start (issue 36's done-when).
			if b := back(rep.Recoveries); scheme == jobs.Asynchronous && len(b) > 0 {
				t.Errorf("survivors' iteration counters went back: %v", b)
			}
		})
	}
}

// TestStepPoint: in a task of several steps every part restarts in the
// newest step a part is known to be in (an asynchronous survivor's current
// step, a part's newest copy): once a part went on to a step, every part
// holds the previous step's end (engine/solve stepCheckpoint) and is
// advanced from it, so nobody is sent back. A part's start of that step,
// when its statuses know it, is where it restarts if it was further on. A
// task of one step restores each part's newest as before.
func TestStepPoint(t *testing.T) {
	s := &submission{spec: jobs.Spec{App: "heat", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1"}},
		statuses: make([]solve.NodeStatus, 3)}
	// a1 lost: its newest copy, 1000, is of the start of step 3 (2
	// advanced past); a2 is in step 4 (begun at 2100); b1 in step 3.
	s.statuses[0] = solve.NodeStatus{Copies: []uint64{1000, 900, 200}, StepStarts: []uint64{0, 900, 1000}, StepBase: 0}
	s.statuses[1] = solve.NodeStatus{Copies: []uint64{1100}, StepStarts: []uint64{1100, 2100}, StepBase: 2}
	s.statuses[2] = solve.NodeStatus{Copies: []uint64{1200}, StepStarts: []uint64{800, 1200}, StepBase: 1}
	from, err := stepPoint(s, []string{"a1"}, nil)
	if err != nil || !from.Latest || from.Step != 3 || !slices.Equal(from.StepFrom, []uint64{0, 2100, 0}) {
		t.Fatalf("plan %+v, %v: want every part in a2's step 4 (3 advanced), a2 from 2100, the others' starts unknown", from, err)
	}
	// Every part in step 3: each from its newest, its start of step 3
	// said in case it went on.
	s.statuses[1].StepStarts = []uint64{1100}
	if from, err = stepPoint(s, []string{"a1"}, nil); err != nil || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{1000, 1100, 1200}) {
		t.Fatalf("plan %+v, %v: want step 3 (2 advanced), from 1000, 1100, 1200", from, err)
	}
	// Hybrid survivors restart from their newest checkpoint: a2's is of
	// step 2's end (the start of step 3, 900 < 1100 lags), the others'
	// of step 3, where every part restarts.
	s.spec.Scheme = jobs.Hybrid
	s.statuses[1].Copies = []uint64{900}
	s.statuses[1].StepStarts, s.statuses[1].StepBase = []uint64{0, 800, 1100, 2100}, 0
	if from, err = stepPoint(s, []string{"a1"}, nil); err != nil || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{1000, 1100, 1200}) {
		t.Fatalf("hybrid: plan %+v, %v", from, err)
	}
	s.statuses[2].StepStarts = nil
	if from, err = stepPoint(s, []string{"a1"}, nil); err != nil || !from.Latest || from.StepFrom != nil {
		t.Fatalf("one step: %+v %v, want each part's newest", from, err)
	}
}

// TestStepPointHeld: a lost part's statuses lag (its newest copy they
// reported is of the step before the survivors'): the survivors still
// stay in their step, where they stood (issue 36's done-when), and the
// lost part restores its copy of that step's end, advanced. Before, the
// step was the lost part's, and the survivors went back to its start. A
// survivor's state where it stopped (held, askHeld) further on than its
// statuses say raises the step: it is not sent back either.
func TestStepPointHeld(t *testing.T) {
	s := stepsAhead()
	from, err := stepPoint(s, []string{"a1"}, nil)
	if err != nil || !from.Latest || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{0, 1100, 1200}) {
		t.Fatalf("statuses only: %+v %v, want step 3 (2 advanced), a2 and b1 where they stood", from, err)
	}
	// Its holder keeps the end of step 2 (1150): the same plan.
	held := map[int]checkpoint.Header{0: {Rank: 0, Iteration: 1150, Step: 1, End: true}}
	if from, err = stepPoint(s, []string{"a1"}, held); err != nil || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{0, 1100, 1200}) {
		t.Fatalf("held end of step 2: %+v %v, want step 3", from, err)
	}
	// b1 stopped in step 4 (its statuses had not said so yet), and so
	// a1's holder keeps a1's end of step 3: every part goes there, a1 and
	// a2 from their ends of step 3, b1 where it stood.
	held[2] = checkpoint.Header{Rank: 2, Iteration: 1900, Step: 3}
	held[0] = checkpoint.Header{Rank: 0, Iteration: 1700, Step: 2, End: true}
	if from, err = stepPoint(s, []string{"a1"}, held); err != nil || from.Step != 3 || !slices.Equal(from.StepFrom, []uint64{0, 0, 0}) {
		t.Fatalf("b1 further on: %+v %v, want step 4 (3 advanced)", from, err)
	}
}

// TestStepPointEndNotKept: a lost part's holder keeps a copy of the step
// before the survivors' that is not that step's end (its end failed to
// reach the buddy, and the part voted and went on all the same): it
// cannot be advanced into the survivors' step, so every part restarts in
// the lost part's step, the survivors at their start of it. Before, the
// plan was the survivors' step, and the lost part's older copy was
// advanced unfinished (its start of the step unknown) or refused.
func TestStepPointEndNotKept(t *testing.T) {
	s := stepsAhead()
	held := map[int]checkpoint.Header{0: {Rank: 0, Iteration: 1000, Step: 1}}
	from, err := stepPoint(s, []string{"a1"}, held)
	if err != nil || from.Step != 1 || !slices.Equal(from.StepFrom, []uint64{900, 900, 800}) {
		t.Fatalf("end not kept: %+v %v, want every part in step 2 (1 advanced), from 900, 900, 800", from, err)
	}
	// The same copy, the end of step 2: every part in step 3.
	held[0] = checkpoint.Header{Rank: 0, Iteration: 1000, Step: 1, End: true}
	if from, err = stepPoint(s, []string{"a1"}, held); err != nil || from.Step != 2 || !slices.Equal(from.StepFrom, []uint64{0, 1100, 1200}) {
		t.Fatalf("end kept: %+v %v, want step 3 (2 advanced)", from, err)
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

// stepsAhead is the submission of an asynchronous heat run of three parts
// in which a1, lost, reported copy 950 of step 2 (begun at 900), and a2
// and b1 are in step 3 (begun at 1100 and 1200; step 2 at 900 and 800).
func stepsAhead() *submission {
	s := &submission{spec: jobs.Spec{App: "heat", Scheme: jobs.Asynchronous},
		plan:     &Plan{Ranks: []string{"a1", "a2", "b1"}},
		statuses: make([]solve.NodeStatus, 3)}
	s.statuses[0] = solve.NodeStatus{Copies: []uint64{950}, StepStarts: []uint64{0, 900}, StepBase: 0}
	s.statuses[1] = solve.NodeStatus{Copies: []uint64{1100}, StepStarts: []uint64{900, 1100}, StepBase: 1}
	s.statuses[2] = solve.NodeStatus{Copies: []uint64{1200}, StepStarts: []uint64{800, 1200}, StepBase: 1}
	return s
}
