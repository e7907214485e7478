package poisson

import (
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Checkpoint writes the block's state (gridapp.Checkpointer): u with its
// ghost layers, and the halos as they are.
func (b *Block) Checkpoint(w io.Writer) error {
	return gridapp.WriteState(w, append([][]float64{b.u}, b.halo...)...)
}

// Restore reads a state Checkpoint wrote into a block of the same box. The
// ghost layers are those of both iterates (as Received keeps them).
func (b *Block) Restore(r io.Reader) error {
	if err := gridapp.ReadState(r, append([][]float64{b.u}, b.halo...)...); err != nil {
		return err
	}
	copy(b.next, b.u)
	return nil
}
