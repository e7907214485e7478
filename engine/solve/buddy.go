package solve

import "github.com/gridtui/gridtui/internal/checkpoint"

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
	// Save keeps the encoded checkpoint (checkpoint.Append) of h on this
	// node and sends a copy to the buddy. An error (no buddy reachable)
	// leaves the local copy kept.
	Save(h checkpoint.Header, encoded []byte) error
	// Load returns want.Rank's checkpoint of iteration it (latest: the
	// newest), checked against want: from this node's memory first, else
	// from the plan's holders. Refused lists the copies passed over, each
	// naming its node and the reason.
	Load(want checkpoint.Header, it uint64, latest bool) (h checkpoint.Header, payload []byte, refused []string, err error)
	// None records that the application has no checkpoints: the submitter
	// then says so when a loss cannot be recovered.
	None(app string)
}

// checkpointFraming is room for a container's header and checksum (run
// ids are at most 255 bytes).
const checkpointFraming = 64 + 255 + 4

// saveCopy encodes and hands one checkpoint to the part's CopyStore.
func (c *checkpointer) saveCopy(w checkpointWrite) error {
	// The store keeps the bytes: a buffer of their own.
	enc, err := checkpoint.Append(make([]byte, 0, len(w.payload)+checkpointFraming), w.h, w.payload)
	if err != nil {
		return err
	}
	return c.copies.Save(w.h, enc)
}

// restoreCopy reads the part's checkpoint from its CopyStore.
func (s *solver) restoreCopy(c *checkpointer, want checkpoint.Header) (checkpoint.Header, []byte, error) {
	h, payload, refused, err := c.copies.Load(want, c.plan.Restore, c.plan.Latest)
	for _, r := range refused {
		s.res.CheckpointNotes = append(s.res.CheckpointNotes, "refused "+Bare(r))
	}
	return h, payload, err
}
