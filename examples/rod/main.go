// Command rod is gridtui with one application of its own registered, "rod":
// the steady temperature of a rod heated evenly, ends held at 0 (−u″ = 1 on
// (0,1), u(0) = u(1) = 0), by Jacobi iterations on n interior points cut into
// one segment per node. The binary is console, headless runner and worker.
//
//	go build && ./rod run --app rod --nodes 4 --param n=100
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/cli"
)

func main() {
	gridapp.Register("rod", rod{})
	cli.Main()
}

type rod struct{}

func (rod) Info() gridapp.Info { return gridapp.Info{Summary: "a heated rod, −u″ = 1, Jacobi"} }

func (rod) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 32, 1, 1<<20, "interior points"),
		gridapp.FloatParam("eps", 1e-10, 0, 1, "tolerance on σ = max|u'−u|").Above(),
		gridapp.IntParam("iters", 0, 0, 1<<30, "do exactly this many iterations and compare with the serial reference (0: until σ < eps)"),
	}
}

// Define cuts the rod into one segment per node, neighbouring the next.
func (rod) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	segs, err := gridapp.Split(v.Int("n"), len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: v.Float("eps")}
	if v.Int("iters") > 0 {
		t.Eps = math.SmallestNonzeroFloat64 // only the segments' σ = 0 once done stops the run
	}
	for r, seg := range segs {
		spec, _ := json.Marshal(seg)
		var nbs []int // rank order: the lower neighbour first
		for _, nb := range []int{r - 1, r + 1} {
			if nb >= 0 && nb < len(segs) {
				nbs = append(nbs, nb)
			}
		}
		t.Parts = append(t.Parts, gridapp.PartSpec{Neighbours: nbs, Spec: spec, Size: seg.Len()})
	}
	return t, nil
}

// segment is u on its points with a halo at each end, u[0] and u[m+1].
type segment struct {
	u, next []float64
	hh      float64
	lower   bool // neighbour 0 is the segment below
	left    int  // sweeps still to do
}

func (rod) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var seg gridapp.Range
	if err := json.Unmarshal(sub.Spec, &seg); err != nil {
		return nil, fmt.Errorf("rod: sub-task %q: %w", sub.Spec, err)
	}
	h, m := 1/float64(v.Int("n")+1), seg.Len()+2
	return &segment{u: make([]float64, m), next: make([]float64, m), hh: h * h, lower: seg.Lo > 0,
		left: cmp.Or(v.Int("iters"), math.MaxInt)}, nil
}

// jacobi sweeps u's interior into next: the kernel of the segments and Serial.
func jacobi(u, next []float64, hh float64) (sigma float64) {
	for i := 1; i < len(u)-1; i++ {
		next[i] = (u[i-1] + u[i+1] + hh) / 2
		sigma = max(sigma, math.Abs(next[i]-u[i]))
	}
	return sigma
}

// Sweep reads only the segment's values and its halos. Once the iterations
// asked for are done it keeps its values and reports σ = 0.
func (p *segment) Sweep() float64 {
	if p.left == 0 {
		return 0
	}
	p.left--
	sigma := jacobi(p.u, p.next, p.hh)
	copy(p.u[1:len(p.u)-1], p.next[1:len(p.u)-1]) // never swap u: its ghost cells are the halos (Halo: the same slice always)
	return sigma
}

// end maps neighbour i to the index of the value it needs and of its halo.
func (p *segment) end(i int) (own, halo int) {
	if i == 0 && p.lower {
		return 1, 0
	}
	return len(p.u) - 2, len(p.u) - 1
}

func (p *segment) Outgoing(i int) []float64 { k, _ := p.end(i); return p.u[k : k+1] }
func (p *segment) Halo(i int) []float64     { _, k := p.end(i); return p.u[k : k+1] }
func (p *segment) Result() []float64        { return p.u[1 : len(p.u)-1] }
func (p *segment) Close()                   {}

// Serial is the specification: Jacobi on the whole rod (until σ < eps or iters).
func (rod) Serial(v gridapp.Values) (u []float64, k int, sigma float64, err error) {
	n, eps, iters := v.Int("n"), v.Float("eps"), v.Int("iters")
	u, next, h := make([]float64, n+2), make([]float64, n+2), 1/float64(n+1)
	for sigma = math.Inf(1); (iters == 0 && sigma >= eps) || k < iters; k++ {
		sigma = jacobi(u, next, h*h)
		u, next = next, u
	}
	return u[1 : n+1], k, sigma, nil
}

// Assemble joins the segments and measures the solution: its true residual
// (one more sweep), its error against the exact solution x(1−x)/2 (exact at
// the grid points for this stencil) and, with iters set, its distance to the
// serial reference, which a synchronous run makes 0.
func (rod) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	n, k, u := v.Int("n"), v.Int("iters"), slices.Concat(results...)
	if len(u) != n {
		return gridapp.Result{}, fmt.Errorf("rod: %d values for n = %d", len(u), n)
	}
	ref, h := u, 1/float64(n+1)
	if k > 0 {
		ref, _, _, _ = rod{}.Serial(v)
	}
	var e, d float64
	for i, ui := range u {
		x := float64(i+1) * h
		e, d = max(e, math.Abs(ui-x*(1-x)/2)), max(d, math.Abs(ui-ref[i]))
	}
	res := jacobi(slices.Concat([]float64{0}, u, []float64{0}), make([]float64, n+2), h*h)
	out := gridapp.Result{Solution: u, Residual: res, OK: res < v.Float("eps"),
		Figures: []gridapp.Figure{{Name: "max error against the exact solution x(1−x)/2", Value: e}}}
	if k > 0 {
		out.OK = d == 0
		out.Figures = append(out.Figures, gridapp.Figure{Name: fmt.Sprintf("max |u − serial reference| after %d iterations", k), Value: d})
	}
	return out, nil
}
