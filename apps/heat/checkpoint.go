package heat

import (
	"fmt"
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Checkpoint writes the part's state (gridapp.Checkpointer): the sweeps of
// the current step, the sweeps and levels of the steps done, u with its
// ghost layers, the previous time level and the halos.
func (q *Part) Checkpoint(w io.Writer) error {
	sweeps := make([]float64, len(q.sweeps))
	for i, s := range q.sweeps {
		sweeps[i] = float64(s)
	}
	bufs := append([][]float64{{float64(q.k)}, sweeps, q.levels, q.u, q.prev}, q.halo...)
	return gridapp.WriteState(w, bufs...)
}

// Restore reads a state Checkpoint wrote into a part of the same tile.
func (q *Part) Restore(r io.Reader) error {
	k := make([]float64, 1)
	if err := gridapp.ReadState(r, k); err != nil {
		return err
	}
	steps := q.p.Steps
	sweeps, err := gridapp.ReadFloats(r, steps)
	if err != nil {
		return fmt.Errorf("heat: sweeps of the steps done: %w", err)
	}
	levels, err := gridapp.ReadFloats(r, len(sweeps)*q.nx*q.ny)
	if err != nil {
		return fmt.Errorf("heat: levels of the steps done: %w", err)
	}
	if len(levels) != len(sweeps)*q.nx*q.ny {
		return fmt.Errorf("%w: heat: %d level values for %d steps", gridapp.ErrState, len(levels), len(sweeps))
	}
	if err := gridapp.ReadState(r, append([][]float64{q.u, q.prev}, q.halo...)...); err != nil {
		return err
	}
	q.k = int(k[0])
	q.sweeps = q.sweeps[:0]
	for _, s := range sweeps {
		q.sweeps = append(q.sweeps, int(s))
	}
	q.levels = append(q.levels[:0], levels...)
	copy(q.next, q.u)
	return nil
}
