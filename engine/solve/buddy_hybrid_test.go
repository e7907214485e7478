package solve

import "testing"

// TestLastCheckpointHybrid: a hybrid part of a task of one step keeps its
// state where it stopped (its cluster may not be the one that rolls back:
// CheckpointPlan.Rollback); one of a task of several steps does not
// (every part restarts in one step from its newest checkpoint), nor does a
// synchronous part.
func TestLastCheckpointHybrid(t *testing.T) {
	for _, c := range []struct {
		scheme Scheme
		steps  int
		kept   bool
	}{{Hybrid, 1, true}, {Hybrid, 3, false}, {Synchronous, 1, false}, {Asynchronous, 3, true}} {
		m := &memCopies{}
		s := &solver{detector: DetectActivity, iter: 12, steps: c.steps, ckpt: &checkpointer{plan: CheckpointPlan{Run: "r"}, part: &boundedPart{}, copies: m}}
		s.t.Scheme, s.t.Ranks = c.scheme, 1
		s.lastCheckpoint()
		if its := m.iterations(); (len(its) == 1 && its[0] == 12) != c.kept {
			t.Errorf("%s, %d steps: kept %v, want kept %v", c.scheme, c.steps, its, c.kept)
		}
	}
}
