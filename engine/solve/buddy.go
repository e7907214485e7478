package solve

import (
	"errors"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/checkpoint"
)

// Holder is a node that may hold a part's checkpoints in memory: its name
// and its control endpoint's addresses (Ethernet first).
type Holder struct {
	Node string
	Ctrl []string `json:",omitempty"`
}

// CopyStore keeps a part's checkpoints in memory, on the worker and on a
// buddy node of the job (double in-memory checkpointing, docs/FAILURES.md).
// The worker implements it over its control endpoint; Solve calls Save off
// the iteration's path (the checkpoint writer) and Load before the first
// iteration of a recovered attempt.
type CopyStore interface {
	// Save keeps the encoded checkpoint (checkpoint.Append or Seal) of h
	// on this node, the bytes themselves (encoded is the store's from then
	// on), and sends a copy to the buddy. An error wrapping ErrNotCopied
	// (the buddy could not be reached, or did not take the copy in time)
	// leaves the local copy kept, and the part's next checkpoints go on.
	Save(h checkpoint.Header, encoded []byte) error
	// Load returns want.Rank's checkpoint of iteration it (latest: the
	// newest), checked against want: from this node's memory first, else
	// from the plan's holders. Refused lists the copies passed over, each
	// naming its node and the reason.
	Load(want checkpoint.Header, it uint64, latest bool) (h checkpoint.Header, payload []byte, refused []string, err error)
	// Buffer returns an empty buffer of capacity n for the next encoded
	// checkpoint (one the store no longer keeps, when it can).
	Buffer(n int) []byte
	// Keep keeps the encoded checkpoint of h on this node only (the last
	// state of a part whose attempt was stopped: lastCheckpoint).
	Keep(h checkpoint.Header, encoded []byte)
	// None records that the application has no checkpoints: the submitter
	// then says so when a loss cannot be recovered.
	None(app string)
}

// ErrNotCopied is what a CopyStore's Save wraps when it kept the
// checkpoint here but not on the buddy.
var ErrNotCopied = errors.New("engine: checkpoint copy not kept by the buddy")

// restoreCopy reads the part's checkpoint from its CopyStore.
func (s *solver) restoreCopy(c *checkpointer, want checkpoint.Header) (checkpoint.Header, []byte, error) {
	return s.loadCopy(c, want, c.plan.Restore, c.plan.Latest)
}

// loadCopy reads the part's checkpoint of iteration it (latest: its
// newest) from its CopyStore.
func (s *solver) loadCopy(c *checkpointer, want checkpoint.Header, it uint64, latest bool) (checkpoint.Header, []byte, error) {
	h, payload, refused, err := c.copies.Load(want, it, latest)
	for _, r := range refused {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, "refused "+Bare(r))
	}
	return h, payload, err
}

// abortCheckpointWait bounds lastCheckpoint's wait for a part whose
// checkpoint comes from outside the worker (an exec program's answer): a
// program that stopped answering must not hold the abort, and so the
// recovery, for the job's timeout.
const abortCheckpointWait = time.Second

// lastCheckpoint keeps, in this node's memory, the state of an
// asynchronous part whose attempt stopped (the abort after a loss
// elsewhere, or a neighbour's link that went down with it): the next
// attempt restores each part from its newest checkpoint, so the survivors
// resume where they stopped and never go back (docs/FAILURES.md). Only the
// lost part restarts from an older one, its buddy's copy, which to its
// neighbours is a long delay. The activity detector starts afresh with
// every part, so it is never fooled. A hybrid part of a task of one step
// keeps its state too: a loss rolls back the lost part's cluster, linked
// synchronously, to an iteration its parts share (CheckpointPlan.Rollback),
// and the other clusters' parts resume where they stopped. Synchronous
// runs roll back to a common iteration instead, and hybrid tasks of
// several steps and the switch detector keep their checkpoints as they
// are.
func (s *solver) lastCheckpoint() {
	c := s.ckpt
	kept := s.t.Scheme == Asynchronous || s.t.Scheme == Hybrid && s.steps <= 1
	if c == nil || c.copies == nil || !kept || s.detector != DetectActivity || s.iter <= int(s.res.Restored) {
		return
	}
	c.buf.Reset()
	var err error
	if b, ok := c.part.(gridapp.BoundedCheckpointer); ok {
		err = b.CheckpointWithin(&c.buf, abortCheckpointWait)
	} else {
		err = c.part.Checkpoint(&c.buf)
	}
	if err != nil {
		return
	}
	h := s.header(c)
	enc, err := checkpoint.Append(nil, h, c.buf.Bytes())
	if err != nil {
		return
	}
	c.copies.Keep(h, enc)
}
