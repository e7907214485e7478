package structured

import (
	"fmt"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Range is a half-open index range [Lo, Hi).
type Range = gridapp.Range

// Box is a box of grid points in global coordinates: X, Y and Z ranges (a
// 2-D grid's Z is [0, 1), a 1-D grid's Y and Z are).
type Box struct {
	X, Y, Z Range
}

// Points returns the number of points of the box.
func (b Box) Points() int { return b.X.Len() * b.Y.Len() * b.Z.Len() }

// Empty says the box holds no point.
func (b Box) Empty() bool { return b.X.Len() < 1 || b.Y.Len() < 1 || b.Z.Len() < 1 }

// String formats the box as [lo,hi)×[lo,hi)×[lo,hi).
func (b Box) String() string { return fmt.Sprintf("%v×%v×%v", b.X, b.Y, b.Z) }

// Each calls fn for every point of the box, x-major (k fastest).
func (b Box) Each(fn func(i, j, k int)) {
	for i := b.X.Lo; i < b.X.Hi; i++ {
		for j := b.Y.Lo; j < b.Y.Hi; j++ {
			for k := b.Z.Lo; k < b.Z.Hi; k++ {
				fn(i, j, k)
			}
		}
	}
}
