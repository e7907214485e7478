package poisson

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Blocks is an a×b×c decomposition of the grid into blocks, one per node,
// ranked x-major: block (bi, bj, bk) is rank (bi·b + bj)·c + bk.
type Blocks struct{ A, B, C int }

// ParseBlocks reads "a×b×c" or "axbxc".
func ParseBlocks(s string) (Blocks, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == '×' })
	if len(f) != 3 {
		return Blocks{}, fmt.Errorf("poisson: blocks %q: want a×b×c, e.g. 2x2x1", s)
	}
	var v [3]int
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return Blocks{}, fmt.Errorf("poisson: blocks %q: %q is not a positive integer", s, x)
		}
		v[i] = n
	}
	return Blocks{v[0], v[1], v[2]}, nil
}

// String formats the blocks as "axbxc".
func (b Blocks) String() string { return fmt.Sprintf("%dx%dx%d", b.A, b.B, b.C) }

// Count returns the number of blocks.
func (b Blocks) Count() int { return b.A * b.B * b.C }

// AutoBlocks factors nodes into the most cubic a×b×c, a ≥ b ≥ c.
func AutoBlocks(nodes int) Blocks {
	best, bestScore := Blocks{nodes, 1, 1}, nodes
	for a := 1; a <= nodes; a++ {
		for b := 1; b <= a; b++ {
			if nodes%(a*b) != 0 {
				continue
			}
			c := nodes / (a * b)
			if c > b {
				continue
			}
			if score := a - c; score < bestScore {
				best, bestScore = Blocks{a, b, c}, score
			}
		}
	}
	return best
}

// Box is one block: owned index ranges (0-based) along x, y and z.
type Box struct {
	X, Y, Z gridapp.Range
}

// Points returns the number of points of the box.
func (b Box) Points() int { return b.X.Len() * b.Y.Len() * b.Z.Len() }

// Boxes splits the n³ grid into the blocks, in rank order.
func (b Blocks) Boxes(n int) ([]Box, error) {
	xs, err := gridapp.Split(n, b.A)
	if err != nil {
		return nil, err
	}
	ys, err := gridapp.Split(n, b.B)
	if err != nil {
		return nil, err
	}
	zs, err := gridapp.Split(n, b.C)
	if err != nil {
		return nil, err
	}
	out := make([]Box, 0, b.Count())
	for _, x := range xs {
		for _, y := range ys {
			for _, z := range zs {
				out = append(out, Box{x, y, z})
			}
		}
	}
	return out, nil
}

// faces are the six directions, in the order a block lists its neighbours:
// x−, x+, y−, y+, z−, z+.
var faces = [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}

// Neighbours returns the ranks of block r's face neighbours and the face
// (index into faces) each lies on.
func (b Blocks) Neighbours(r int) (ranks, dirs []int) {
	bk := r % b.C
	bj := (r / b.C) % b.B
	bi := r / (b.B * b.C)
	dims := [3]int{b.A, b.B, b.C}
	for d, f := range faces {
		p := [3]int{bi + f[0], bj + f[1], bk + f[2]}
		if p[0] < 0 || p[1] < 0 || p[2] < 0 || p[0] >= dims[0] || p[1] >= dims[1] || p[2] >= dims[2] {
			continue
		}
		ranks = append(ranks, (p[0]*b.B+p[1])*b.C+p[2])
		dirs = append(dirs, d)
	}
	return ranks, dirs
}

// Block is one node's share of the problem: its box of u and u' with one
// ghost layer on every side (zero on ∂Ω, the neighbours' values elsewhere),
// h²f on the box, and a pool of the node's cores sweeping slices along x.
type Block struct {
	p          Problem
	box        Box
	nx, ny, nz int // owned points per axis
	sy, sx     int // strides of the padded arrays (z is contiguous)
	u, next    []float64
	hhf        []float64 // h²f on the owned points, x-major
	dirs       []int     // face of each neighbour
	out, halo  [][]float64
	cores      []gridapp.Range // x-slices of the cores
	pool       *gridapp.Pool
	job        func(core int) float64
	result     []float64
}

// NewBlock allocates the block box of problem p, u⁰ = 0, with a pool of
// cores; dirs are the faces of its neighbours, in their order.
func NewBlock(p Problem, box Box, dirs []int, cores int) (*Block, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	nx, ny, nz := box.X.Len(), box.Y.Len(), box.Z.Len()
	if nx < 1 || ny < 1 || nz < 1 || box.X.Hi > p.N || box.Y.Hi > p.N || box.Z.Hi > p.N || box.X.Lo < 0 || box.Y.Lo < 0 || box.Z.Lo < 0 {
		return nil, fmt.Errorf("%w: block %v outside the %d³ grid or empty", ErrInvalid, box, p.N)
	}
	xs, err := gridapp.Split(nx, min(max(cores, 1), nx))
	if err != nil {
		return nil, err
	}
	b := &Block{p: p, box: box, nx: nx, ny: ny, nz: nz, sy: nz + 2, sx: (ny + 2) * (nz + 2), dirs: dirs, cores: xs}
	size := (nx + 2) * b.sx
	b.u, b.next = make([]float64, size), make([]float64, size)
	b.hhf = make([]float64, nx*ny*nz)
	h := p.H()
	for i := range nx {
		for j := range ny {
			for k := range nz {
				b.hhf[(i*ny+j)*nz+k] = hhLoad(h, box.X.Lo+i+1, box.Y.Lo+j+1, box.Z.Lo+k+1)
			}
		}
	}
	for _, d := range dirs {
		m := b.faceLen(d)
		b.out, b.halo = append(b.out, make([]float64, m)), append(b.halo, make([]float64, m))
	}
	b.pool = gridapp.NewPool(len(xs))
	b.job = func(c int) float64 { return b.sweepX(b.cores[c]) }
	return b, nil
}

// faceLen returns the number of points on face d.
func (b *Block) faceLen(d int) int {
	switch d / 2 {
	case 0:
		return b.ny * b.nz
	case 1:
		return b.nx * b.nz
	}
	return b.nx * b.ny
}

// at returns the padded index of owned point (i, j, k) (0-based, −1 and
// n are the ghost layers).
func (b *Block) at(i, j, k int) int { return (i+1)*b.sx + (j+1)*b.sy + k + 1 }

// Sweep performs one Jacobi iteration on the block with the current ghost
// layers and returns the local σ.
func (b *Block) Sweep() float64 {
	sigma := b.pool.Run(b.job)
	b.u, b.next = b.next, b.u
	return sigma
}

// sweepX updates the x-slice xs of the owned points from u into next (the
// same arithmetic as SerialSweep, in the same order).
func (b *Block) sweepX(xs gridapp.Range) float64 {
	u, next, sx, sy, nz := b.u, b.next, b.sx, b.sy, b.nz
	var sigma float64
	for i := xs.Lo; i < xs.Hi; i++ {
		for j := range b.ny {
			base := b.at(i, j, 0)
			f := b.hhf[(i*b.ny+j)*nz : (i*b.ny+j+1)*nz]
			for k := range nz {
				c := base + k
				s := ((((u[c-sx] + u[c+sx]) + u[c-sy]) + u[c+sy]) + u[c-1]) + u[c+1]
				v := (s + f[k]) / 6.0
				sigma = max(sigma, math.Abs(v-u[c]))
				next[c] = v
			}
		}
	}
	return sigma
}

// face calls fn for every point of face d: the padded index of the owned
// point on that face (ghost false) or of the ghost point beyond it (ghost
// true), and the point's position in the face's message.
func (b *Block) face(d int, ghost bool, fn func(idx, pos int)) {
	lo, hi := [3]int{0, 0, 0}, [3]int{b.nx, b.ny, b.nz}
	axis, dir := d/2, faces[d][d/2]
	plane := 0
	if dir > 0 {
		plane = hi[axis] - 1
	}
	if ghost {
		plane += dir
	}
	lo[axis], hi[axis] = plane, plane+1
	pos := 0
	for i := lo[0]; i < hi[0]; i++ {
		for j := lo[1]; j < hi[1]; j++ {
			for k := lo[2]; k < hi[2]; k++ {
				fn(b.at(i, j, k), pos)
				pos++
			}
		}
	}
}

// Outgoing packs the face neighbour i needs.
func (b *Block) Outgoing(i int) []float64 {
	out := b.out[i]
	b.face(b.dirs[i], false, func(idx, pos int) { out[pos] = b.u[idx] })
	return out
}

// Halo returns the buffer for neighbour i's face.
func (b *Block) Halo(i int) []float64 { return b.halo[i] }

// Received unpacks neighbour i's face into the ghost layer (of both
// iterates, so that it stays in place after the next swap).
func (b *Block) Received(i int) {
	h := b.halo[i]
	b.face(b.dirs[i], true, func(idx, pos int) { b.u[idx], b.next[idx] = h[pos], h[pos] })
}

// Result returns the owned values, x-major over the box.
func (b *Block) Result() []float64 {
	if b.result == nil {
		b.result = make([]float64, b.box.Points())
	}
	for i := range b.nx {
		for j := range b.ny {
			copy(b.result[(i*b.ny+j)*b.nz:(i*b.ny+j+1)*b.nz], b.u[b.at(i, j, 0):b.at(i, j, b.nz)])
		}
	}
	return b.result
}

// Close stops the block's pool.
func (b *Block) Close() { b.pool.Close() }
