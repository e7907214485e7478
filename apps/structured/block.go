package structured

import (
	"fmt"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Local is the application's local function on one block (PETSc's
// DMDASNESSetFunctionLocal): Sweep updates the owned points of box — one
// core's share of the block — from b.U into b.Next, reading only b.U
// (whose ghosts hold the neighbours' values or the boundary values) and
// the application's own fields, and returns σ over box (e.g.
// max |u' − u|). The cores' boxes are disjoint and sweep at once; the
// toolkit then swaps U and Next.
type Local interface {
	Sweep(b *Block, box Box) float64
}

// Advancer is implemented by a Local of a task with several outer steps
// (Setup.Steps): Advance moves it to the next step (e.g. keeps b.U as the
// previous time level), once the step has converged everywhere.
type Advancer interface {
	Advance(b *Block)
}

// run is a contiguous stretch of a padded array: n values from start.
type run struct{ start, n int }

// Block is one node's share of a structured grid: its box of owned points
// with Ghost layers on every side that has a neighbour or the boundary, in
// two iterates U and Next of the same Layout (global coordinates), a Pool
// of the node's cores, and the halo buffers. It is the gridapp.Part the
// toolkit gives the engine; the application sees it in its Local.
type Block struct {
	Grid   Grid
	Box    Box    // the owned points
	Layout Layout // of U, Next and every NewField
	U      []float64
	Next   []float64
	// Cores are the boxes the cores sweep (Box split along x).
	Cores []Box

	local     Local
	dirs      []int
	own, gh   [][]run // per neighbour: the owned layers it needs, the ghost layers it fills
	owned     []run
	out, halo [][]float64
	pool      *gridapp.Pool
	job       func(core int) float64
	series    bool
	steps     int
	levels    []float64 // the owned values of the steps done (series)
	sweeps    []int
	k         int // sweeps of the current step
	result    []float64
}

// newBlock allocates box of grid g with its ghost layers, the initial and
// boundary values, the halo buffers of the faces dirs and a pool of cores.
func newBlock(g Grid, box Box, dirs []int, cores int) (*Block, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if box.Empty() || !inside(g.Box(), box) {
		return nil, fmt.Errorf("%w: block %v outside the grid %v or empty", ErrGrid, box, g.N)
	}
	var gw [3]int
	for a := range g.Dims() {
		gw[a] = g.Ghost
	}
	pad := Box{X: Range{Lo: box.X.Lo - gw[0], Hi: box.X.Hi + gw[0]},
		Y: Range{Lo: box.Y.Lo - gw[1], Hi: box.Y.Hi + gw[1]},
		Z: Range{Lo: box.Z.Lo - gw[2], Hi: box.Z.Hi + gw[2]}}
	var l Layout
	switch g.Dims() {
	case 3:
		l = Layout{SZ: 1, SY: pad.Z.Len(), SX: pad.Y.Len() * pad.Z.Len()}
	case 2:
		l = Layout{SY: 1, SX: pad.Y.Len()}
	default:
		l = Layout{SX: 1}
	}
	l.Off = -l.At(pad.X.Lo, pad.Y.Lo, pad.Z.Lo)
	b := &Block{Grid: g, Box: box, Layout: l, dirs: dirs}
	b.U, b.Next = make([]float64, pad.Points()), make([]float64, pad.Points())
	b.fill(pad)
	for _, d := range dirs {
		own, gh := faceLayers(box, d, g.Ghost)
		b.own, b.gh = append(b.own, runs(l, own)), append(b.gh, runs(l, gh))
		b.out, b.halo = append(b.out, make([]float64, own.Points())), append(b.halo, make([]float64, gh.Points()))
	}
	b.owned = runs(l, box)
	xs, err := gridapp.Split(box.X.Len(), min(max(cores, 1), box.X.Len()))
	if err != nil {
		return nil, err
	}
	for _, x := range xs {
		b.Cores = append(b.Cores, Box{X: Range{Lo: box.X.Lo + x.Lo, Hi: box.X.Lo + x.Hi}, Y: box.Y, Z: box.Z})
	}
	b.pool = gridapp.NewPool(len(b.Cores))
	b.job = func(c int) float64 { return b.local.Sweep(b, b.Cores[c]) }
	return b, nil
}

// inside says box lies in outer.
func inside(outer, box Box) bool {
	in := func(o, r Range) bool { return r.Lo >= o.Lo && r.Hi <= o.Hi }
	return in(outer.X, box.X) && in(outer.Y, box.Y) && in(outer.Z, box.Z)
}

// fill sets the owned points to the initial values and the ghost points
// beyond the domain to the boundary values, in both iterates.
func (b *Block) fill(pad Box) {
	g, dom := b.Grid, b.Grid.Box()
	for i := pad.X.Lo; i < pad.X.Hi; i++ {
		for j := pad.Y.Lo; j < pad.Y.Hi; j++ {
			for k := pad.Z.Lo; k < pad.Z.Hi; k++ {
				var v float64
				p := Box{X: Range{Lo: i, Hi: i + 1}, Y: Range{Lo: j, Hi: j + 1}, Z: Range{Lo: k, Hi: k + 1}}
				switch {
				case !inside(dom, p):
					if g.Boundary != nil {
						v = g.Boundary(i, j, k)
					}
				case inside(b.Box, p):
					if g.Initial != nil {
						v = g.Initial(i, j, k)
					}
				}
				c := b.Layout.At(i, j, k)
				b.U[c], b.Next[c] = v, v
			}
		}
	}
}

// faceLayers returns the owned layers next to face d of box and the ghost
// layers beyond it (width w each): the same points, in global coordinates,
// as the neighbour's ghost and owned layers on its opposite face.
func faceLayers(box Box, d, w int) (own, ghost Box) {
	own, ghost = box, box
	r := [3]*Range{&own.X, &own.Y, &own.Z}[d/2]
	gr := [3]*Range{&ghost.X, &ghost.Y, &ghost.Z}[d/2]
	if d%2 == 0 {
		r.Hi, gr.Lo, gr.Hi = r.Lo+w, r.Lo-w, r.Lo
	} else {
		r.Lo, gr.Lo, gr.Hi = r.Hi-w, r.Hi, r.Hi+w
	}
	return own, ghost
}

// runs lists the points of box in x, y, z order as contiguous stretches of
// layout l.
func runs(l Layout, box Box) []run {
	var out []run
	for i := box.X.Lo; i < box.X.Hi; i++ {
		for j := box.Y.Lo; j < box.Y.Hi; j++ {
			for k := box.Z.Lo; k < box.Z.Hi; k++ {
				c := l.At(i, j, k)
				if n := len(out); n > 0 && out[n-1].start+out[n-1].n == c {
					out[n-1].n++
				} else {
					out = append(out, run{start: c, n: 1})
				}
			}
		}
	}
	return out
}

// gather copies the runs of src into dst, one after the other.
func gather(dst, src []float64, rs []run) []float64 {
	pos := 0
	for _, r := range rs {
		pos += copy(dst[pos:], src[r.start:r.start+r.n])
	}
	return dst
}

// NewField returns a zero array of the block's layout (e.g. a right-hand
// side or a previous time level, read by the Local with the same indices
// as U).
func (b *Block) NewField() []float64 { return make([]float64, len(b.U)) }

// Sweep runs the Local on every core's box at once and swaps the iterates.
func (b *Block) Sweep() float64 {
	sigma := b.pool.Run(b.job)
	b.U, b.Next = b.Next, b.U
	b.k++
	return sigma
}

// Outgoing packs the owned layers neighbour i needs.
func (b *Block) Outgoing(i int) []float64 { return gather(b.out[i], b.U, b.own[i]) }

// Halo returns the buffer neighbour i's layers arrive in (always the same
// slice, of the same length).
func (b *Block) Halo(i int) []float64 { return b.halo[i] }

// Received unpacks neighbour i's layers into the ghost layers of both
// iterates (so that they stay in place after the next swap).
func (b *Block) Received(i int) {
	h := b.halo[i]
	pos := 0
	for _, r := range b.gh[i] {
		copy(b.U[r.start:r.start+r.n], h[pos:])
		pos += copy(b.Next[r.start:r.start+r.n], h[pos:])
	}
}

// Advance keeps the step's values (of a series) and the step's sweeps, and
// advances the Local (Advancer).
func (b *Block) Advance() {
	if b.series {
		b.levels = b.appendOwned(b.levels)
	}
	b.sweeps = append(b.sweeps, b.k)
	b.k = 0
	if a, ok := b.local.(Advancer); ok {
		a.Advance(b)
	}
}

// appendOwned appends the owned values of U, x-major.
func (b *Block) appendOwned(dst []float64) []float64 {
	for _, r := range b.owned {
		dst = append(dst, b.U[r.start:r.start+r.n]...)
	}
	return dst
}

// Result returns the owned values (of every step, the current one
// repeated for the steps a cut run never reached, when the Setup asks for
// a series), then the sweeps of each step (0 for those never reached).
func (b *Block) Result() []float64 {
	b.result = append(b.result[:0], b.levels...)
	levels := 1
	if b.series {
		levels = b.steps - len(b.sweeps)
	}
	for range levels {
		b.result = b.appendOwned(b.result)
	}
	for _, k := range b.sweeps {
		b.result = append(b.result, float64(k))
	}
	b.result = append(b.result, float64(b.k))
	for range b.steps - len(b.sweeps) - 1 {
		b.result = append(b.result, 0)
	}
	return b.result
}

// Close stops the block's pool.
func (b *Block) Close() { b.pool.Close() }
