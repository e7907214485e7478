package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// stepPoint is the restore point of an asynchronous or hybrid attempt
// after a loss: every part from its newest checkpoint and, in a task of
// several outer steps, in the same step (solve.CheckpointPlan.Step). That
// step is the newest a part is known to be in: a part checkpoints each
// step's end and waits until the copy is kept before it votes
// (engine/solve stepCheckpoint), so once one part has gone on to a step,
// every part's newest checkpoint is of that step or of the previous
// step's end, from which it is advanced into it (solve's restoreStep).
// What a part is known to be in: its newest copy by its statuses, raised
// to the newest copy its holders keep now (held, askHeld: the statuses
// lag), and an asynchronous survivor's state where it stopped (its
// current step). A part in that step resumes where it stood, so the
// survivors never go back; one the submitter did not know to be further
// on restarts at that step's start (StepFrom, 0 when unknown: the part
// restores its newest as it is or advanced).
func stepPoint(s *submission, gone []string, held map[int]checkpoint.Header) (solve.CheckpointPlan, error) {
	from := solve.CheckpointPlan{Latest: true}
	where := stoppedWhere(s.spec)
	if fromStart(s, gone, held, &from) {
		return from, nil
	}
	step := -1
	for r, name := range s.plan.Ranks {
		st := s.statuses[r]
		if len(st.StepStarts) == 0 {
			return from, nil // one step, or not known: as before
		}
		n := 0 // an asynchronous survivor without a checkpoint: where it stopped (below)
		if len(st.Copies) > 0 {
			n = stepOf(st, st.Copies[0])
		}
		if h, ok := held[r]; ok {
			n = max(n, h.Step)
		}
		if where && !slices.Contains(gone, name) {
			n = max(n, st.StepBase+len(st.StepStarts)-1)
		}
		step = max(step, n)
	}
	step = stepReached(s, gone, held, step)
	from.Step, from.StepFrom = step, make([]uint64, len(s.plan.Ranks))
	for r := range s.plan.Ranks {
		st := s.statuses[r]
		if i := step - st.StepBase; i >= 0 && i < len(st.StepStarts) {
			from.StepFrom[r] = st.StepStarts[i]
		}
	}
	return from, nil
}

// stepReached lowers step to the newest a lost part can be restored into
// from the copy its holder keeps (held): that copy's step, or the next
// when the copy is that step's end (checkpoint.Header.End). A part votes
// for a step's end only once its copy of it is kept, so the lost parts
// reach the survivors' step, unless that copy failed to reach the buddy
// (solve's stepCheckpoint). Every part then restarts in the lost part's
// step: the survivors at their start of it (StepFrom), going back.
func stepReached(s *submission, gone []string, held map[int]checkpoint.Header, step int) int {
	for r, name := range s.plan.Ranks {
		h, ok := held[r]
		if !ok || !slices.Contains(gone, name) {
			continue
		}
		reach := h.Step
		if h.End {
			reach++
		}
		if reach < step && s.logf != nil {
			s.logf(name, "rank %d's newest copy (iteration %d) is of step %d, not its end: every part restarts in step %d", r, h.Iteration, h.Step+1, reach+1)
		}
		step = min(step, reach)
	}
	return step
}

// fromStart sets from.OrStart to the ranks that reported no checkpoint
// yet (a loss before their first) and whose holders hold none either
// (held, askHeld): each restores its newest if it finds one (an
// asynchronous survivor its state where it stopped), else starts from the
// start of the run. It reports whether one of them surely starts
// from the start (a lost part, or any part of a run whose survivors do
// not keep where they stopped): every part then restarts in the run's
// first step (Step 0, StepFrom all 0, the start of the run), since a part
// in step 1 beside neighbours in a later step breaks the step protocol. In
// a task of one step that changes nothing: every checkpoint is of step 0.
func fromStart(s *submission, gone []string, held map[int]checkpoint.Header, from *solve.CheckpointPlan) bool {
	where, fresh := stoppedWhere(s.spec), false
	for r, name := range s.plan.Ranks {
		if _, ok := held[r]; ok || len(s.statuses[r].Copies) > 0 {
			continue
		}
		from.OrStart = append(from.OrStart, r)
		fresh = fresh || !where || slices.Contains(gone, name)
	}
	if fresh {
		from.Step, from.StepFrom = 0, make([]uint64, len(s.plan.Ranks))
	}
	return fresh
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

// askTimeout bounds asking the parts' holders what they keep: every
// holder is asked at once (worker.AskEach), and one that does not answer
// by then counts as its statuses say.
const askTimeout = 2 * time.Second

// askHeld asks, in a task of several steps, the holders of each part on a
// gone node for the newest copy they keep (worker.AskNewest), and each
// asynchronous survivor's node for the state it stopped at (solve's
// lastCheckpoint): the statuses lag, most a lost coordinator's members'
// (they pass through it), and a restore step picked from them alone sent
// the survivors back to their step's start (issue 36). A part whose
// holders do not answer keeps what its statuses said; a newest state is
// never past the part's true one, so the step stays sound. In a task of
// one step it asks only for the lost parts that reported no copy (a copy
// can reach the buddy before a status says so): one whose holder keeps a
// copy restores from it rather than from the start (fromStart). Such a
// part's newest checkpoint on disk, when the run writes there and no
// holder answered, counts too: its restore reads it. The ranks of
// rollback (a synchronous run's, a hybrid run's lost clusters') are asked
// in any task: a lost one's holders, a survivor's own node (the memory it
// restores from), so that the common rollback iteration is the newest
// they really keep, not what lagging statuses last said (memoryPoint,
// clusterIteration). All asks go at once, within askTimeout.
func (s *submission) askHeld(gone []string, holders map[int][]solve.Holder, rollback []int) map[int]checkpoint.Header {
	if s.ckpt == nil || len(s.plan.Ranks) == 0 {
		return nil
	}
	steps := true
	for r := range s.plan.Ranks {
		if len(s.statuses[r].StepStarts) == 0 {
			steps = false // one step, or not known: the step does not matter
		}
	}
	where := stoppedWhere(s.spec)
	var asks []worker.NewestAsk
	for r, name := range s.plan.Ranks {
		ask := holders[r]
		lost, none := slices.Contains(gone, name), len(s.statuses[r].Copies) == 0
		back := slices.Contains(rollback, r)
		switch {
		case back && !lost:
			ask = []solve.Holder{s.holder(name)} // its own memory, which its restore reads first
		case back:
		case !steps && !(lost && none):
			continue
		case !lost && !where:
			continue
		case !lost:
			ask = []solve.Holder{s.holder(name)} // where it stopped (solve's lastCheckpoint)
		}
		for _, b := range ask {
			asks = append(asks, worker.NewestAsk{Holder: b, Rank: r})
		}
	}
	held := map[int]checkpoint.Header{}
	if len(asks) > 0 {
		heads, errs := s.askEach(asks)
		for i, a := range asks {
			name := s.plan.Ranks[a.Rank]
			if _, ok := held[a.Rank]; ok {
				continue // the first of its holders that answers: the one the restore reads
			}
			if errs[i] != nil {
				s.logf(name, "newest copy not asked for: %v", errs[i])
				continue
			}
			h := heads[i]
			held[a.Rank] = h
			if st := s.statuses[a.Rank]; len(st.Copies) > 0 && h.Step > stepOf(st, st.Copies[0]) && slices.Contains(gone, name) {
				s.logf(name, "rank %d's newest copy, on %s, is of step %d (iteration %d), later than its statuses said", a.Rank, a.Holder.Node, h.Step+1, h.Iteration)
			}
		}
	}
	for r, name := range s.plan.Ranks {
		if _, ok := held[r]; !ok && slices.Contains(gone, name) && len(s.statuses[r].Copies) == 0 && s.ckpt.Dir != "" {
			if h, err := (checkpoint.Dir{Path: s.ckpt.Dir}).NewestHeader(s.ckpt.Run, r); err == nil {
				held[r] = h // read from the disk when no holder has it
			}
		}
	}
	return held
}

// askEach sends asks (worker.AskEach) from an endpoint of this attempt's
// own, within askTimeout; every ask fails when none can be opened.
func (s *submission) askEach(asks []worker.NewestAsk) ([]checkpoint.Header, []error) {
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	cfg := rmnp.DefaultConfig()
	// Not SubmitterID, and one of this attempt's own: a node may still
	// hold a closed link of an earlier id, and then did not answer.
	cfg.RunID, cfg.Secret, cfg.Self = s.opt.RunID, s.opt.Secret, worker.NodeID(fmt.Sprintf("submitter: copies %d", s.run))
	ep, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		errs := make([]error, len(asks))
		for i := range errs {
			errs[i] = fmt.Errorf("engine: the holders not asked for their copies: %w", err)
		}
		return make([]checkpoint.Header, len(asks)), errs
	}
	defer ep.Close()
	return worker.AskEach(ctx, ep, s.ckpt.Run, asks)
}
