package obstacle

import (
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Checkpoint writes the slab's state (gridapp.Checkpointer): its sweep
// count, its owned planes and both halo planes.
func (s *Slab) Checkpoint(w io.Writer) error {
	return gridapp.WriteState(w, []float64{float64(s.iter)}, s.u, s.haloLo, s.haloHi)
}

// CheckpointSize is the size of what Checkpoint writes, in bytes (the
// environment sizes the first checkpoint's buffer with it).
func (s *Slab) CheckpointSize() int {
	return 8 * (4 + 1 + len(s.u) + len(s.haloLo) + len(s.haloHi))
}

// Restore reads a state Checkpoint wrote into a slab of the same planes.
func (s *Slab) Restore(r io.Reader) error {
	iter := make([]float64, 1)
	if err := gridapp.ReadState(r, iter, s.u, s.haloLo, s.haloHi); err != nil {
		return err
	}
	s.iter = int(iter[0])
	return nil
}
