package jobs

import (
	"errors"
	"fmt"
)

// ErrSplit is wrapped by every error Split returns.
var ErrSplit = errors.New("jobs: cannot split")

// Range is a half-open interval [Lo, Hi) of plane indices along one axis.
type Range struct{ Lo, Hi int }

// Len returns the number of planes in r.
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
