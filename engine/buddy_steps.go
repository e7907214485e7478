package engine

import (
	"fmt"
	"slices"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// stepPoint is the restore point of an asynchronous or hybrid attempt
// after a loss: every part from its newest checkpoint and, in a task of
// several outer steps, in the same step (solve.CheckpointPlan.Step). That
// step is the oldest of the parts' newest restorable states: a lost part's
// newest copy, an asynchronous survivor's state where it stopped (its
// current step), another survivor's newest checkpoint. A part already in
// it resumes where it stood; one a step ahead restarts at that step's
// start, which each part checkpoints.
func stepPoint(s *submission, gone []string) (solve.CheckpointPlan, error) {
	from := solve.CheckpointPlan{Latest: true}
	where := stoppedWhere(s.spec)
	step := -1
	for r, name := range s.plan.Ranks {
		st := s.statuses[r]
		if len(st.StepStarts) == 0 {
			return from, nil // one step, or not known: as before
		}
		n := stepOf(st, st.Copies[0])
		if where && !slices.Contains(gone, name) {
			n = max(n, st.StepBase+len(st.StepStarts)-1)
		}
		if step < 0 || n < step {
			step = n
		}
	}
	from.Step, from.StepFrom = step, make([]uint64, len(s.plan.Ranks))
	for r, name := range s.plan.Ranks {
		st := s.statuses[r]
		i := step - st.StepBase
		if i < 0 || i >= len(st.StepStarts) {
			return from, fmt.Errorf("rank %d (%s) reported the starts of steps %d to %d, not of step %d where every part must restart",
				r, name, st.StepBase+1, st.StepBase+len(st.StepStarts), step+1)
		}
		from.StepFrom[r] = st.StepStarts[i]
	}
	return from, nil
}

// stoppedWhere says whether a survivor of the spec's runs restarts where
// it stopped (solve's lastCheckpoint: asynchronous, activity detector)
// rather than from its newest checkpoint.
func stoppedWhere(spec jobs.Spec) bool {
	return spec.Scheme == jobs.Asynchronous && (spec.Detector == "" || spec.Detector == solve.DetectActivity)
}

// stepOf is the step (steps advanced past) of the part's iteration it by
// the step starts st reported; the step before them when it is older.
func stepOf(st solve.NodeStatus, it uint64) int {
	i, ok := slices.BinarySearch(st.StepStarts, it)
	if !ok {
		i-- // the last start before it
	}
	return st.StepBase + i
}
