package structured

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// ErrGrid is wrapped by the errors about a grid, its blocks or its nodes.
var ErrGrid = errors.New("structured: invalid grid")

// Grid is the global structured grid an application gives the toolkit.
type Grid struct {
	// N holds the points per axis, x first (the slowest-varying axis of the
	// solution's order): one, two or three axes.
	N []int
	// Ghost is the stencil's reach: the ghost layers each face receives
	// from its neighbour (at least 1; faces only, no edges or corners: a
	// star stencil such as the 5- and 7-point ones).
	Ghost int
	// Boundary returns the fixed value of a ghost point beyond the domain,
	// in global coordinates (some coordinate < 0 or ≥ N); nil means 0.
	Boundary func(i, j, k int) float64
	// Initial returns the initial value of point (i, j, k); nil means 0.
	Initial func(i, j, k int) float64
	// Origin and Spacing are the coordinates of point (0, 0, 0) and the
	// distance between points along each axis, for the solution's files
	// (App.GridShape: --out's VTI); nil or a missing axis means 0 and 1.
	Origin, Spacing []float64
}

// Dims returns the number of axes.
func (g Grid) Dims() int { return len(g.N) }

// Points returns the number of points of the grid.
func (g Grid) Points() int {
	p := 1
	for _, n := range g.N {
		p *= n
	}
	return p
}

// shape returns the points per axis as three (missing axes hold one point).
func (g Grid) shape() [3]int {
	s := [3]int{1, 1, 1}
	copy(s[:], g.N)
	return s
}

// Validate reports whether g describes a grid the toolkit accepts.
func (g Grid) Validate() error {
	if len(g.N) < 1 || len(g.N) > 3 {
		return fmt.Errorf("%w: %d axes, want 1, 2 or 3", ErrGrid, len(g.N))
	}
	for a, n := range g.N {
		if n < 1 {
			return fmt.Errorf("%w: %d points along axis %d", ErrGrid, n, a)
		}
	}
	if g.Ghost < 1 {
		return fmt.Errorf("%w: ghost width %d, want ≥ 1", ErrGrid, g.Ghost)
	}
	return nil
}

// Box returns the whole grid as a box.
func (g Grid) Box() Box {
	s := g.shape()
	return Box{X: Range{Hi: s[0]}, Y: Range{Hi: s[1]}, Z: Range{Hi: s[2]}}
}

// Blocks is an a×b×c decomposition of a grid into blocks, one per node,
// ranked x-major: block (bi, bj, bk) is rank (bi·b + bj)·c + bk. The axes a
// grid lacks have one block.
type Blocks [3]int

// ParseBlocks reads "a×b×c" (or "axbxc"; one factor per axis of a grid of
// dims axes).
func ParseBlocks(s string, dims int) (Blocks, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == '×' })
	if len(f) != dims {
		return Blocks{}, fmt.Errorf("%w: blocks %q: want %s, one factor per axis", ErrGrid, s, [...]string{"", "a", "a×b", "a×b×c"}[dims])
	}
	b := Blocks{1, 1, 1}
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return Blocks{}, fmt.Errorf("%w: blocks %q: %q is not a positive integer", ErrGrid, s, x)
		}
		b[i] = n
	}
	return b, nil
}

// String formats the blocks of a 3-D grid as "axbxc".
func (b Blocks) String() string { return fmt.Sprintf("%dx%dx%d", b[0], b[1], b[2]) }

// Count returns the number of blocks.
func (b Blocks) Count() int { return b[0] * b[1] * b[2] }

// AutoBlocks factors nodes for a grid of dims axes: the most cubic a×b×c
// with a ≥ b ≥ c in 3-D, the most square a×b with a ≥ b in 2-D, slabs in 1-D.
func AutoBlocks(nodes, dims int) Blocks {
	switch dims {
	case 1:
		return Blocks{nodes, 1, 1}
	case 2:
		best := Blocks{nodes, 1, 1}
		for b := 1; b*b <= nodes; b++ {
			if nodes%b == 0 {
				best = Blocks{nodes / b, b, 1}
			}
		}
		return best
	}
	best, bestScore := Blocks{nodes, 1, 1}, nodes
	for a := 1; a <= nodes; a++ {
		for b := 1; b <= a; b++ {
			if nodes%(a*b) != 0 {
				continue
			}
			if c := nodes / (a * b); c <= b && a-c < bestScore {
				best, bestScore = Blocks{a, b, c}, a-c
			}
		}
	}
	return best
}

// Boxes splits the grid into the blocks, in rank order. Every block must
// hold at least Ghost points along each axis that has several blocks (a
// neighbour's ghost layers come from one block).
func (b Blocks) Boxes(g Grid) ([]Box, error) {
	s := g.shape()
	var axes [3][]Range
	for a := range 3 {
		r, err := gridapp.Split(s[a], b[a])
		if err != nil {
			return nil, fmt.Errorf("%w: %d blocks along %d points: %w", ErrGrid, b[a], s[a], err)
		}
		if b[a] > 1 && s[a]/b[a] < g.Ghost {
			return nil, fmt.Errorf("%w: %d blocks along %d points leave fewer than the %d ghost layers in a block", ErrGrid, b[a], s[a], g.Ghost)
		}
		axes[a] = r
	}
	out := make([]Box, 0, b.Count())
	for _, x := range axes[0] {
		for _, y := range axes[1] {
			for _, z := range axes[2] {
				out = append(out, Box{X: x, Y: y, Z: z})
			}
		}
	}
	return out, nil
}

// faces are the six directions in the order a block lists its neighbours:
// x−, x+, y−, y+, z−, z+.
var faces = [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}

// Neighbours returns the ranks of block r's face neighbours and the face
// (0…5: x−, x+, y−, y+, z−, z+) each lies on: the application's neighbour
// graph.
func (b Blocks) Neighbours(r int) (ranks, dirs []int) {
	p := [3]int{r / (b[1] * b[2]), (r / b[2]) % b[1], r % b[2]}
	for d, f := range faces {
		q := [3]int{p[0] + f[0], p[1] + f[1], p[2] + f[2]}
		if q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= b[0] || q[1] >= b[1] || q[2] >= b[2] {
			continue
		}
		ranks = append(ranks, (q[0]*b[1]+q[1])*b[2]+q[2])
		dirs = append(dirs, d)
	}
	return ranks, dirs
}
