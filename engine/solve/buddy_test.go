package solve

import (
	"errors"
	"io"
	"testing"
	"time"
)

// boundedPart is a Checkpointer whose checkpoint comes from outside the
// worker (gridapp.BoundedCheckpointer): it records the bound it was given.
type boundedPart struct {
	within []time.Duration
	fail   bool
}

func (p *boundedPart) Checkpoint(io.Writer) error { return errors.New("unbounded checkpoint called") }
func (p *boundedPart) Restore(io.Reader) error    { return nil }

func (p *boundedPart) CheckpointWithin(w io.Writer, d time.Duration) error {
	p.within = append(p.within, d)
	if p.fail {
		return errors.New("no answer")
	}
	_, err := w.Write([]byte("state"))
	return err
}

// TestLastCheckpointBounded: the checkpoint an asynchronous part keeps as
// its attempt aborts (lastCheckpoint) asks a BoundedCheckpointer with
// abortCheckpointWait, never the unbounded Checkpoint, keeps what it gave,
// and keeps nothing when it gave up.
func TestLastCheckpointBounded(t *testing.T) {
	for _, fail := range []bool{false, true} {
		p, m := &boundedPart{fail: fail}, &memCopies{}
		s := &solver{detector: DetectActivity, iter: 12, ckpt: &checkpointer{plan: CheckpointPlan{Run: "r"}, part: p, copies: m}}
		s.t.Scheme, s.t.Ranks = Asynchronous, 1
		s.lastCheckpoint()
		if len(p.within) != 1 || p.within[0] != abortCheckpointWait {
			t.Fatalf("fail %v: CheckpointWithin called with %v, want once with %v", fail, p.within, abortCheckpointWait)
		}
		if its := m.iterations(); fail && len(its) != 0 || !fail && (len(its) != 1 || its[0] != 12) {
			t.Errorf("fail %v: kept iterations %v", fail, its)
		}
	}
}
