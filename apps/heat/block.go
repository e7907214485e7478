package heat

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Blocks is an a×b decomposition of the grid into tiles, one per node,
// ranked x-major: tile (bi, bj) is rank bi·b + bj.
type Blocks struct{ A, B int }

// ParseBlocks reads "a×b" or "axb".
func ParseBlocks(s string) (Blocks, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == '×' })
	if len(f) != 2 {
		return Blocks{}, fmt.Errorf("heat: blocks %q: want a×b, e.g. 2x1", s)
	}
	var v [2]int
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return Blocks{}, fmt.Errorf("heat: blocks %q: %q is not a positive integer", s, x)
		}
		v[i] = n
	}
	return Blocks{v[0], v[1]}, nil
}

// String formats the blocks as "axb".
func (b Blocks) String() string { return fmt.Sprintf("%dx%d", b.A, b.B) }

// Count returns the number of tiles.
func (b Blocks) Count() int { return b.A * b.B }

// AutoBlocks factors nodes into the most square a×b, a ≥ b.
func AutoBlocks(nodes int) Blocks {
	best := Blocks{nodes, 1}
	for b := 1; b*b <= nodes; b++ {
		if nodes%b == 0 {
			best = Blocks{nodes / b, b}
		}
	}
	return best
}

// Tile is one node's share: owned index ranges (0-based) along x and y.
type Tile struct{ X, Y gridapp.Range }

// Points returns the number of points of the tile.
func (t Tile) Points() int { return t.X.Len() * t.Y.Len() }

// Tiles splits the n² grid into the blocks, in rank order.
func (b Blocks) Tiles(n int) ([]Tile, error) {
	xs, err := gridapp.Split(n, b.A)
	if err != nil {
		return nil, err
	}
	ys, err := gridapp.Split(n, b.B)
	if err != nil {
		return nil, err
	}
	out := make([]Tile, 0, b.Count())
	for _, x := range xs {
		for _, y := range ys {
			out = append(out, Tile{x, y})
		}
	}
	return out, nil
}

// sides are the four directions, in the order a tile lists its neighbours:
// x−, x+, y−, y+.
var sides = [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}

// Neighbours returns the ranks of tile r's edge neighbours and the side
// (index into sides) each lies on.
func (b Blocks) Neighbours(r int) (ranks, dirs []int) {
	bi, bj := r/b.B, r%b.B
	for d, s := range sides {
		pi, pj := bi+s[0], bj+s[1]
		if pi < 0 || pj < 0 || pi >= b.A || pj >= b.B {
			continue
		}
		ranks = append(ranks, pi*b.B+pj)
		dirs = append(dirs, d)
	}
	return ranks, dirs
}

// Part is one node's share of the time series: its tile of u and u' with
// one ghost layer on every side (zero on ∂Ω, the neighbours' values
// elsewhere), the previous time level on the tile, the levels of the steps
// done, and a pool of the node's cores sweeping slices along x.
type Part struct {
	p         Problem
	tile      Tile
	nx, ny    int
	sx        int // row stride of the padded arrays (y is contiguous)
	r, d      float64
	u, next   []float64
	prev      []float64 // uˢ⁻¹ on the owned points, x-major
	levels    []float64 // the owned points of the steps done, one after the other
	sweeps    []int     // sweeps of the steps done
	k         int       // sweeps of the current step
	dirs      []int
	out, halo [][]float64
	cores     []gridapp.Range
	pool      *gridapp.Pool
	job       func(core int) float64
	result    []float64
}

// NewPart allocates tile t of problem p, u = u(0), with a pool of cores;
// dirs are the sides of its neighbours, in their order.
func NewPart(p Problem, t Tile, dirs []int, cores int) (*Part, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	nx, ny := t.X.Len(), t.Y.Len()
	if nx < 1 || ny < 1 || t.X.Lo < 0 || t.Y.Lo < 0 || t.X.Hi > p.N || t.Y.Hi > p.N {
		return nil, fmt.Errorf("%w: tile %v outside the %d² grid or empty", ErrInvalid, t, p.N)
	}
	xs, err := gridapp.Split(nx, min(max(cores, 1), nx))
	if err != nil {
		return nil, err
	}
	q := &Part{p: p, tile: t, nx: nx, ny: ny, sx: ny + 2, r: p.R(), d: p.diag(), dirs: dirs, cores: xs}
	q.u, q.next = make([]float64, (nx+2)*q.sx), make([]float64, (nx+2)*q.sx)
	q.prev = make([]float64, nx*ny)
	h := p.H()
	for i := range nx {
		for j := range ny {
			v := Initial(h, t.X.Lo+i+1, t.Y.Lo+j+1)
			q.prev[i*ny+j], q.u[q.at(i, j)] = v, v
		}
	}
	for _, d := range dirs {
		m := nx
		if d < 2 {
			m = ny
		}
		q.out, q.halo = append(q.out, make([]float64, m)), append(q.halo, make([]float64, m))
	}
	q.pool = gridapp.NewPool(len(xs))
	q.job = func(c int) float64 { return q.sweepX(q.cores[c]) }
	return q, nil
}

// at returns the padded index of owned point (i, j) (−1 and n are ghosts).
func (q *Part) at(i, j int) int { return (i+1)*q.sx + j + 1 }

// Sweep performs one Jacobi iteration of the current step and returns σ.
func (q *Part) Sweep() float64 {
	sigma := q.pool.Run(q.job)
	q.u, q.next = q.next, q.u
	q.k++
	return sigma
}

// sweepX updates the x-slice xs (SerialSweep's arithmetic, in its order).
func (q *Part) sweepX(xs gridapp.Range) float64 {
	u, next, sx, r, d := q.u, q.next, q.sx, q.r, q.d
	var sigma float64
	for i := xs.Lo; i < xs.Hi; i++ {
		base := q.at(i, 0)
		prev := q.prev[i*q.ny : (i+1)*q.ny]
		for j := range q.ny {
			c := base + j
			s := ((u[c-sx] + u[c+sx]) + u[c-1]) + u[c+1]
			v := (prev[j] + float64(r*s)) / d
			sigma = max(sigma, math.Abs(v-u[c]))
			next[c] = v
		}
	}
	return sigma
}

// Advance keeps the step's solution as the previous time level; the next
// step's iterations start from it.
func (q *Part) Advance() {
	q.levels = q.appendOwned(q.levels)
	q.sweeps = append(q.sweeps, q.k)
	q.k = 0
	for i := range q.nx {
		copy(q.prev[i*q.ny:(i+1)*q.ny], q.u[q.at(i, 0):q.at(i, q.ny)])
	}
}

// appendOwned appends the owned values of u, x-major.
func (q *Part) appendOwned(dst []float64) []float64 {
	for i := range q.nx {
		dst = append(dst, q.u[q.at(i, 0):q.at(i, q.ny)]...)
	}
	return dst
}

// side calls fn for every point of side d: the padded index of the owned
// point on it (ghost false) or of the ghost beyond it (ghost true), and its
// position in the side's message.
func (q *Part) side(d int, ghost bool, fn func(idx, pos int)) {
	s := sides[d]
	switch {
	case s[0] != 0:
		i := 0
		if s[0] > 0 {
			i = q.nx - 1
		}
		if ghost {
			i += s[0]
		}
		for j := range q.ny {
			fn(q.at(i, j), j)
		}
	default:
		j := 0
		if s[1] > 0 {
			j = q.ny - 1
		}
		if ghost {
			j += s[1]
		}
		for i := range q.nx {
			fn(q.at(i, j), i)
		}
	}
}

// Outgoing packs the side neighbour i needs.
func (q *Part) Outgoing(i int) []float64 {
	out := q.out[i]
	q.side(q.dirs[i], false, func(idx, pos int) { out[pos] = q.u[idx] })
	return out
}

// Halo returns the buffer for neighbour i's side.
func (q *Part) Halo(i int) []float64 { return q.halo[i] }

// Received unpacks neighbour i's side into the ghost layer of both iterates.
func (q *Part) Received(i int) {
	h := q.halo[i]
	q.side(q.dirs[i], true, func(idx, pos int) { q.u[idx], q.next[idx] = h[pos], h[pos] })
}

// Result returns the owned values of every step, the current one last
// (repeated for the steps a cut run never reached), then the sweeps of each
// step (0 for those never reached): Steps·points + Steps values.
func (q *Part) Result() []float64 {
	q.result = append(q.result[:0], q.levels...)
	for range q.p.Steps - len(q.sweeps) {
		q.result = q.appendOwned(q.result)
	}
	for _, k := range q.sweeps {
		q.result = append(q.result, float64(k))
	}
	q.result = append(q.result, float64(q.k))
	for range q.p.Steps - len(q.sweeps) - 1 {
		q.result = append(q.result, 0)
	}
	return q.result
}

// Close stops the part's pool.
func (q *Part) Close() { q.pool.Close() }
