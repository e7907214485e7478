package gridapp

import "fmt"

// HaloGuard enforces the length rule of Part.Halo for one part: Halo(i)
// must return as many values on every call of the run as on the first (the
// neighbour's Outgoing for this part has that length). The slice itself may
// change between sweeps (a part may return a slice of an iterate it swaps):
// the environment asks for it afresh before every write and never keeps it
// across a Sweep or an Advance.
type HaloGuard struct {
	n    []int
	seen []bool
}

// NewHaloGuard returns the guard of a part with neighbours neighbours.
func NewHaloGuard(neighbours int) *HaloGuard {
	return &HaloGuard{n: make([]int, neighbours), seen: make([]bool, neighbours)}
}

// Check records len(h) as Halo(i)'s length on its first call and, on later
// calls, returns an error (wrapping ErrApp) if the length changed.
func (g *HaloGuard) Check(i int, h []float64) error {
	if !g.seen[i] {
		g.n[i], g.seen[i] = len(h), true
		return nil
	}
	if len(h) != g.n[i] {
		return fmt.Errorf("%w: Halo(%d) changed length from %d to %d values (it must keep its length for the whole run)", ErrApp, i, g.n[i], len(h))
	}
	return nil
}
