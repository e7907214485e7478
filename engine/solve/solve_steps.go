package solve

import (
	"context"
	"errors"
	"fmt"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// A task of several outer steps (gridapp.Task.Steps, e.g. time steps) runs
// the scheme and its detector once per step, as a run of its own on the
// same links. Between two steps the parts agree, over CTRL, that every one
// of them saw the step converge, and clear their links of the step's control
// messages:
//
//  1. vote: the conjunction of "the detector declared convergence" goes up
//     the spanning tree rooted at rank 0 (ctrlStepVote, arg the step);
//  2. decision: the root sends "next step" or "stop" down the tree
//     (ctrlStepGo, seq 1 to go on);
//  3. fence: on going on, every part sends ctrlStepFence on every link and
//     reads each link up to its neighbour's fence.
//
// CTRL is reliable and in order on each link, so whatever the finished
// detector left unread on a link (a last token, an acknowledgement) comes
// before the neighbour's vote, decision or fence and is dropped there, and
// whatever the neighbour sends in the next step comes after its fence and
// stays queued. The three detectors read every message of theirs before
// they stop, so nothing is dropped today; the fence, one control message per
// link and step, keeps a detector that stops with a message in flight from
// corrupting the next step. DATA needs no fence: a synchronous step ends with every
// halo taken (all ranks stop at the same iteration) and an activity-graph
// step only when every update was acknowledged; under the switch detector an
// asynchronous halo still in flight is at worst a stale value for the next
// step, which asynchronous iterations tolerate.

// runSteps runs the scheme for each of the task's steps, advancing the
// part between them.
func (s *solver) runSteps(ctx context.Context, run func(context.Context) error) error {
	first := 1
	if s.ckpt != nil {
		first += s.ckpt.step // restored after that many steps
	}
	for step := first; ; step++ {
		s.stepStarted(step-1, step == first)
		if err := run(ctx); err != nil {
			return err
		}
		if step >= s.steps {
			return nil
		}
		s.stepCheckpoint(ctx, step)
		goOn, err := s.stepAgree(ctx, step)
		if err != nil {
			return err
		}
		if !goOn { // some rank's step was cut (MaxIter): the run ends unconverged everywhere
			s.res.Converged = false
			return nil
		}
		s.part.(gridapp.Stepper).Advance()
		if s.ckpt != nil {
			s.ckpt.step, s.ckpt.atEnd = step, false
		}
		s.stepSweeps = 0
		if err := s.stepFence(ctx, step); err != nil {
			return err
		}
		for _, l := range s.links {
			l.seq, l.ever = 0, false // the next step's updates are numbered anew
		}
		s.res.Converged = false
	}
}

// stepAgree runs the vote and the decision of step.
func (s *solver) stepAgree(ctx context.Context, step int) (bool, error) {
	_, parent, children := s.tree(0)
	ok := s.res.Converged
	for _, c := range children {
		m, err := s.stepMessage(ctx, c, ctrlStepVote, step)
		if err != nil {
			return false, err
		}
		ok = ok && m.seq == 1
	}
	if parent >= 0 {
		if err := s.sendCtrl(ctx, parent, encodeCtrl(s.ctrlOut, ctrlStepVote, flag(ok), uint64(step), nil)); err != nil {
			return false, err
		}
		m, err := s.stepMessage(ctx, parent, ctrlStepGo, step)
		if err != nil {
			return false, err
		}
		ok = m.seq == 1
	}
	for _, c := range children {
		if err := s.sendCtrl(ctx, c, encodeCtrl(s.ctrlOut, ctrlStepGo, flag(ok), uint64(step), nil)); err != nil {
			return false, err
		}
	}
	return ok, nil
}

// stepFence sends the fence of step on every link and reads every link up
// to the neighbour's.
func (s *solver) stepFence(ctx context.Context, step int) error {
	for _, l := range s.links {
		if err := s.sendCtrl(ctx, l.side, encodeCtrl(s.ctrlOut, ctrlStepFence, 0, uint64(step), nil)); err != nil {
			return err
		}
	}
	for _, l := range s.links {
		if _, err := s.stepMessage(ctx, l.side, ctrlStepFence, step); err != nil {
			return err
		}
	}
	return nil
}

// stepMessage reads side's control messages until the one of kind for
// step, dropping the finished detector's leftovers.
func (s *solver) stepMessage(ctx context.Context, side Side, kind ctrlKind, step int) (ctrlMsg, error) {
	for {
		m, err := s.recvCtrl(ctx, side, 0)
		if err != nil {
			return m, err
		}
		switch {
		case m.kind == kind && m.arg == uint64(step):
			return m, nil
		case m.kind >= ctrlStepVote:
			return m, fmt.Errorf("%w: got step message %d of step %d from rank %d, want %d of step %d",
				ErrTermination, m.kind, m.arg, s.links[side].rank, kind, step)
		}
	}
}

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// stepsKept is how many step starts a part reports (NodeStatus.StepStarts):
// a loss rolls back at most to the start of the step of the lost part's
// newest copy, one or two steps behind the others.
const stepsKept = 8

// stepStarted notes that the part begins the step after advanced steps at
// its current iteration. A restored attempt's first step began before the
// checkpoint: at the iteration the plan says (CheckpointPlan.StepFrom),
// when it says one of this step.
func (s *solver) stepStarted(advanced int, first bool) {
	if s.steps <= 1 {
		return
	}
	it := uint64(s.iter)
	if c := s.ckpt; first && c != nil && s.res.Restored > 0 {
		it = s.res.Restored
		if r := s.t.Rank; c.plan.Step == advanced && r < len(c.plan.StepFrom) && c.plan.StepFrom[r] > 0 && c.plan.StepFrom[r] <= it {
			it = c.plan.StepFrom[r]
		}
	}
	if len(s.stepStarts) == 0 {
		s.stepBase = advanced
	}
	s.stepStarts = append(s.stepStarts, it)
	if n := len(s.stepStarts) - stepsKept; n > 0 {
		s.stepStarts = append(s.stepStarts[:0], s.stepStarts[n:]...)
		s.stepBase += n
	}
}

// stepCheckpoint takes, in an asynchronous or hybrid task of several
// steps, a checkpoint of the part's state at the end of each step but the
// last (checkpoint.Header.End), and waits until it is kept (here and on
// the buddy) before the part votes: once the root decides that the parts
// go on, every part's copy of the step's end is held. A lost part is then
// never a step behind a part that went on: restored from that copy and
// advanced (restoreStep), it starts the next step where its neighbours
// did, and the survivors stay where they stood (CheckpointPlan.Step,
// issue 36). The same copy is the next step's start a part further on
// restarts from. A synchronous run rolls back to an iteration every part
// holds, which is of one step by construction.
//
// A copy the buddy did not keep is sent once more (the writer). When that
// fails too, or the part's checkpoints stopped, the part still votes (a
// buddy out of reach must not stop the run, nor hold it), and its result
// says so: a recovery of this part before its next copy is kept then
// finds no copy of the step's end, and restoreStep advances only such a
// copy (Header.End), never an older one; the submitter keeps every part in
// the step that copy is of (stepPoint).
func (s *solver) stepCheckpoint(ctx context.Context, step int) {
	c := s.ckpt
	if c == nil || s.t.Scheme == Synchronous {
		return
	}
	c.atEnd = true // until the advance: the state is the step's end
	err := errors.New("checkpoints stopped")
	kept := make(chan error, 1)
	if c.writes != nil && s.takeCheckpoint(kept) {
		select {
		case err = <-kept:
		case <-ctx.Done():
			return
		}
	}
	if err != nil && c.plan.Every > 0 {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, fmt.Sprintf("the end of step %d (iteration %d) is not kept on the buddy: %s", step, s.iter, Bare(err.Error())))
	}
}
