package sparse

import (
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Checkpoint writes the part's state (gridapp.Checkpointer): x, its own
// entries then its neighbours' halos. The matrix rows are rebuilt by
// NewPart from the sub-task.
func (q *Part) Checkpoint(w io.Writer) error { return gridapp.WriteState(w, q.x) }

// Restore reads a state Checkpoint wrote into a part of the same block.
func (q *Part) Restore(r io.Reader) error { return gridapp.ReadState(r, q.x) }
