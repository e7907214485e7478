package gridapp

import "fmt"

// HaloGuard enforces Part.Halo's contract for one part: Halo(i) must
// return the same buffer (the same backing array, at the same place) of
// the same length on every call of the run as on the first (the
// neighbour's Outgoing for this part has that length). A part that swaps
// iterates keeps its halos in buffers of their own and copies them into
// the iterate in Sweep or Received.
type HaloGuard struct {
	n     []int
	first []*float64 // &Halo(i)[0] on the first call (nil: empty)
	seen  []bool
}

// NewHaloGuard returns the guard of a part with neighbours neighbours.
func NewHaloGuard(neighbours int) *HaloGuard {
	return &HaloGuard{n: make([]int, neighbours), first: make([]*float64, neighbours), seen: make([]bool, neighbours)}
}

// Check records h as Halo(i)'s buffer on its first call and, on later
// calls, returns an error (wrapping ErrApp) if its length or its buffer
// changed.
func (g *HaloGuard) Check(i int, h []float64) error {
	if !g.seen[i] {
		g.n[i], g.seen[i] = len(h), true
		if len(h) > 0 {
			g.first[i] = &h[0]
		}
		return nil
	}
	if len(h) != g.n[i] {
		return fmt.Errorf("%w: Halo(%d) changed length from %d to %d values (it must return the same slice for the whole run)", ErrApp, i, g.n[i], len(h))
	}
	if len(h) > 0 && &h[0] != g.first[i] {
		return fmt.Errorf("%w: Halo(%d) returned another buffer than on its first call (it must return the same slice for the whole run: "+
			"a part that swaps iterates keeps its halos apart and copies them in, in Sweep or Received)", ErrApp, i)
	}
	return nil
}
