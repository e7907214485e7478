package solve

import (
	"errors"
	"fmt"

	"github.com/gridtui/gridtui/internal/checkpoint"
)

// In an asynchronous or hybrid task of several outer steps (time steps)
// every part must restart in the same step after a loss: a part a step
// behind its neighbours would read their next step's votes and fences as
// a violation of the step protocol. Each part checkpoints the end of every
// step but the last and waits until that copy is kept before it votes
// (stepCheckpoint), and reports where its last steps began
// (NodeStatus.StepStarts). Once a part has gone on to a step, every part
// has voted for the previous one's end, so each part's newest checkpoint
// is either of that step or that end: the submitter picks the newest step
// a part is known to be in (CheckpointPlan.Step); a part whose newest
// checkpoint is the previous step's end is restored from it and advanced
// (restoreStep), one in that step resumes where it stood, and one whose
// newest checkpoint is of a later step (the submitter did not know it)
// restarts from that step's start, the end of the step before. A part
// advances only a copy taken at its step's end (checkpoint.Header.End):
// when that copy was not kept (its buddy out of reach), its older one is
// refused rather than advanced unfinished, and the submitter, which reads
// the lost parts' newest headers (askHeld), keeps every part in its step.

// restoreStep returns the checkpoint h (payload) restored from when it is
// of the plan's step, else the part's checkpoint of that step's start: a
// nil payload when that is the start of the run (nothing to restore).
// advance says that the checkpoint is of the end of the step before the
// plan's, which the part must advance past once restored.
func (s *solver) restoreStep(c *checkpointer, want, h checkpoint.Header, payload []byte) (_ checkpoint.Header, _ []byte, advance bool, _ error) {
	r := s.t.Rank
	if !c.plan.Latest || r >= len(c.plan.StepFrom) || h.Step == c.plan.Step {
		return h, payload, false, nil
	}
	it := c.plan.StepFrom[r]
	if h.Step == c.plan.Step-1 {
		// Its newest should be the previous step's end (taken before its
		// vote, and that step ended everywhere since some part is in the
		// next). Any other copy of the step before, or one not of the
		// iteration its start of the step is known to be, is of an
		// unfinished step: never advanced (its end was not kept).
		if err := stepEndOf(r, h, it, c.plan.Step); err != nil {
			return h, nil, false, err
		}
		return h, payload, true, nil
	}
	if h.Step < c.plan.Step {
		return h, nil, false, fmt.Errorf("rank %d's newest checkpoint (iteration %d) is of step %d, but every part restarts in step %d",
			r, h.Iteration, h.Step+1, c.plan.Step+1)
	}
	if it == 0 {
		if c.plan.Step != 0 {
			return h, nil, false, fmt.Errorf("rank %d: no checkpoint of the start of step %d", r, c.plan.Step+1)
		}
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, fmt.Sprintf("restarted from the start, the step of every part, rather than from iteration %d of step %d", h.Iteration, h.Step+1))
		s.dropAfter(c, 0)
		return checkpoint.Header{}, nil, false, nil
	}
	newest := h
	err := errors.New("no checkpoint store")
	if c.copies != nil {
		h, payload, err = s.loadCopy(c, want, it, false)
	}
	if err != nil && c.plan.Dir != "" {
		h, payload, err = s.loadDisk(c, want, it, false)
	}
	switch {
	case err != nil:
		return h, nil, false, fmt.Errorf("rank %d's checkpoint of the start of step %d (iteration %d): %w", r, c.plan.Step+1, it, err)
	case h.Step != c.plan.Step && h.Step != c.plan.Step-1:
		return h, nil, false, fmt.Errorf("rank %d's checkpoint of iteration %d is of step %d, want the start of step %d", r, it, h.Step+1, c.plan.Step+1)
	case h.Step == c.plan.Step-1:
		if err := stepEndOf(r, h, it, c.plan.Step); err != nil {
			return h, nil, false, err
		}
	}
	s.res.CheckpointNotes = append(s.res.CheckpointNotes, fmt.Sprintf("restarted at the start of step %d (iteration %d), the step of every part, rather than from iteration %d of step %d",
		c.plan.Step+1, h.Iteration, newest.Iteration, newest.Step+1))
	s.dropAfter(c, h.Iteration)
	return h, payload, h.Step == c.plan.Step-1, nil
}

// stepEndOf says why rank r's checkpoint h, of the step before step, is
// not that step's end, which the part may be advanced from into step (it:
// the part's start of step, when known): nil when it is.
func stepEndOf(r int, h checkpoint.Header, it uint64, step int) error {
	switch {
	case !h.End:
		return fmt.Errorf("rank %d's checkpoint of iteration %d is of step %d, not its end (that copy was not kept): it cannot start step %d",
			r, h.Iteration, h.Step+1, step+1)
	case it != 0 && h.Iteration != it:
		return fmt.Errorf("rank %d's checkpoint of iteration %d is of step %d, not its end (iteration %d): it cannot start step %d",
			r, h.Iteration, h.Step+1, it, step+1)
	}
	return nil
}

// dropAfter forgets the part's checkpoints past iteration it, from which
// it restarts, in this node's memory (when its CopyStore can) and on disk:
// those of the timeline it abandons, which a second loss would otherwise
// restore as its newest. Its buddy's copies of them stay until the part's
// checkpoints pass them (docs/FAILURES.md).
func (s *solver) dropAfter(c *checkpointer, it uint64) {
	if d, ok := c.copies.(interface {
		DropAfter(run string, rank int, it uint64)
	}); ok {
		d.DropAfter(c.plan.Run, s.t.Rank, it)
	}
	if c.plan.Dir == "" {
		return
	}
	if err := (checkpoint.Dir{Path: c.plan.Dir}).DropAfter(c.plan.Run, s.t.Rank, it); err != nil {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, fmt.Sprintf("checkpoints past iteration %d not deleted: %s", it, Bare(err.Error())))
	}
}
