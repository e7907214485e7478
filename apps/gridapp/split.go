package gridapp

import (
	"errors"
	"fmt"
)

// ErrSplit is wrapped by every error Split returns.
var ErrSplit = errors.New("gridapp: cannot split")

// Range is a half-open interval [Lo, Hi) of indices along one axis (planes of
// a grid, rows of a matrix).
type Range struct{ Lo, Hi int }

// Len returns the number of indices in r.
func (r Range) Len() int { return r.Hi - r.Lo }

// String formats r as [lo,hi).
func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.Lo, r.Hi) }

// Split divides [0, n) into parts contiguous ranges whose sizes differ by at
// most one, the larger ones first: the balanced a·b decomposition of GRIDHPC
// Sec. VI-B, which also accepts n not divisible by parts. It fails if
// parts < 1 or parts > n (a part would be empty).
func Split(n, parts int) ([]Range, error) {
	if parts < 1 || parts > n {
		return nil, fmt.Errorf("%w: %d planes into %d parts, want 1 ≤ parts ≤ planes", ErrSplit, n, parts)
	}
	rs := make([]Range, parts)
	size, extra := n/parts, n%parts
	lo := 0
	for i := range rs {
		hi := lo + size
		if i < extra {
			hi++
		}
		rs[i] = Range{Lo: lo, Hi: hi}
		lo = hi
	}
	return rs, nil
}

// ErrGraph is wrapped by every error CheckGraph returns.
var ErrGraph = errors.New("gridapp: bad neighbour graph")

// CheckGraph checks a task's neighbour graph: every neighbour is another
// existing part named once, the relation is symmetric, and the graph is
// connected (the termination detectors reach every part). The engine calls
// it on every Task before anything starts.
func CheckGraph(parts []PartSpec) error {
	n := len(parts)
	if n == 0 {
		return fmt.Errorf("%w: no parts", ErrGraph)
	}
	for r, p := range parts {
		seen := map[int]bool{}
		for _, q := range p.Neighbours {
			switch {
			case q < 0 || q >= n:
				return fmt.Errorf("%w: part %d names neighbour %d of %d parts", ErrGraph, r, q, n)
			case q == r:
				return fmt.Errorf("%w: part %d names itself", ErrGraph, r)
			case seen[q]:
				return fmt.Errorf("%w: part %d names neighbour %d twice", ErrGraph, r, q)
			}
			seen[q] = true
			if indexOf(parts[q].Neighbours, r) < 0 {
				return fmt.Errorf("%w: part %d names %d, but %d does not name %d", ErrGraph, r, q, q, r)
			}
		}
	}
	reached := make([]bool, n)
	stack := []int{0}
	reached[0] = true
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range parts[r].Neighbours {
			if !reached[q] {
				reached[q] = true
				stack = append(stack, q)
			}
		}
	}
	for r, ok := range reached {
		if !ok {
			return fmt.Errorf("%w: part %d is not connected to part 0", ErrGraph, r)
		}
	}
	return nil
}

// indexOf returns the position of x in s, or −1.
func indexOf(s []int, x int) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}
