package obstacle

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Name is the name the obstacle application registers under.
const Name = "obstacle"

func init() { gridapp.Register(Name, App{}) }

// App is the obstacle problem as a gridapp.Application: slabs of planes
// along x, one per node, each swept by a pool of its node's cores along y
// (the a·b decomposition of GRIDHPC Sec. VI-B); the neighbour graph is the
// chain of slabs.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "3-D obstacle problem (GRIDHPC Sec. VI), projected Richardson, slabs along x"}
}

// Params declares n and eps.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 48, 1, MaxN, "interior points per axis"),
		gridapp.FloatParam("eps", 1e-8, 0, math.MaxFloat64, "tolerance on σ = max|u'−u|").Above(),
	}
}

// ProblemOf returns the problem the values describe.
func ProblemOf(v gridapp.Values) Problem {
	return Problem{N: v.Int("n"), Eps: v.Float("eps")}
}

// partSpec is the Spec of a slab's sub-task.
type partSpec struct {
	Lo, Hi int
}

// Define splits the n planes over the nodes; every node needs at least one
// plane, and at least one row along y per core.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	p := ProblemOf(v)
	ranges, err := Split(p.N, len(nodes))
	if err != nil {
		return gridapp.Task{}, fmt.Errorf("obstacle: n = %d is too small to split over %d nodes (each node needs at least one plane): %w", p.N, len(nodes), err)
	}
	t := gridapp.Task{Eps: p.Eps, Parts: make([]gridapp.PartSpec, len(nodes))}
	for r, rg := range ranges {
		if c := nodes[r].Cores; c > p.N {
			return gridapp.Task{}, fmt.Errorf("obstacle: node %s: %d cores but n = %d leaves fewer planes than cores along y", nodes[r].Name, c, p.N)
		}
		spec, err := json.Marshal(partSpec{Lo: rg.Lo, Hi: rg.Hi})
		if err != nil {
			return gridapp.Task{}, err
		}
		ps := gridapp.PartSpec{Spec: spec, Size: rg.Len() * p.N * p.N}
		if r > 0 {
			ps.Neighbours = append(ps.Neighbours, r-1)
		}
		if r < len(ranges)-1 {
			ps.Neighbours = append(ps.Neighbours, r+1)
		}
		t.Parts[r] = ps
	}
	return t, nil
}

// NewPart allocates the slab of the sub-task.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var ps partSpec
	if err := json.Unmarshal(sub.Spec, &ps); err != nil {
		return nil, fmt.Errorf("%w: sub-task %q: %w", ErrSlab, sub.Spec, err)
	}
	s, err := NewSlab(ProblemOf(v), Range{Lo: ps.Lo, Hi: ps.Hi}, max(sub.Cores, 1))
	if err != nil {
		return nil, err
	}
	part := &SlabPart{Slab: s}
	for i, q := range sub.Neighbours {
		switch {
		case q == sub.Rank-1 && ps.Lo > 0:
			part.side[i] = lower
		case q == sub.Rank+1 && ps.Hi < s.p.N:
			part.side[i] = upper
		default:
			s.Close()
			return nil, fmt.Errorf("%w: rank %d planes %v: neighbour %d is not an adjacent slab", ErrSlab, sub.Rank, s.r, q)
		}
	}
	if len(sub.Neighbours) > 2 {
		s.Close()
		return nil, fmt.Errorf("%w: rank %d: %d neighbours, a slab has at most 2", ErrSlab, sub.Rank, len(sub.Neighbours))
	}
	return part, nil
}

const (
	lower = iota
	upper
)

// SlabPart is a Slab as a gridapp.Part: neighbour i is the slab below or
// above it.
type SlabPart struct {
	*Slab
	side [2]int
}

// Outgoing returns the boundary plane neighbour i needs.
func (p *SlabPart) Outgoing(i int) []float64 {
	if p.side[i] == lower {
		return p.LowPlane()
	}
	return p.HighPlane()
}

// Halo returns the ghost plane neighbour i writes.
func (p *SlabPart) Halo(i int) []float64 {
	if p.side[i] == lower {
		return p.LowHalo()
	}
	return p.HighHalo()
}

// Result returns the slab's planes.
func (p *SlabPart) Result() []float64 { return p.Values() }

// ranges returns the slabs' planes as the task's part specs give them.
func ranges(t gridapp.Task) ([]Range, error) {
	parts := make([]Range, len(t.Parts))
	for r, ps := range t.Parts {
		var s partSpec
		if err := json.Unmarshal(ps.Spec, &s); err != nil {
			return nil, fmt.Errorf("%w: part %d: %w", ErrSlab, r, err)
		}
		parts[r] = Range{Lo: s.Lo, Hi: s.Hi}
	}
	return parts, nil
}

// Assemble gathers the slabs and measures the solution's true residual.
func (a App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	p := ProblemOf(v)
	parts, err := ranges(t)
	if err != nil {
		return gridapp.Result{}, err
	}
	u, err := Assemble(p, parts, results)
	if err != nil {
		return gridapp.Result{}, err
	}
	return gridapp.Result{Solution: u, Residual: Residual(p, u), OK: true}, nil
}

// Check checks the complementarity conditions of the assembled solution
// (CheckComplementarity, with the tolerance its true residual allows): the
// obstacle problem's own verdict on a run.
func (App) Check(v gridapp.Values, _ gridapp.Task, res gridapp.Result) []gridapp.Check {
	p := ProblemOf(v)
	c := CheckComplementarity(p, res.Solution, ComplementarityTol(p, res.Residual))
	h2 := p.H() * p.H()
	return []gridapp.Check{
		{Name: "complementarity: min u−φ", Value: c.MinUMinusPhi, OK: c.MinUMinusPhi >= -c.Tol*h2/6,
			Text: fmt.Sprintf("%.3g (≥ −%.3g)", c.MinUMinusPhi, c.Tol*h2/6)},
		{Name: "complementarity: min Au−f", Value: c.MinAuMinusF, OK: c.MinAuMinusF >= -c.Tol,
			Text: fmt.Sprintf("%.3g (≥ −%.3g)", c.MinAuMinusF, c.Tol)},
		{Name: "complementarity: max |(Au−f)(u−φ)|", Value: c.MaxProduct, OK: c.MaxProduct <= c.Tol,
			Text: fmt.Sprintf("%.3g (≤ %.3g)", c.MaxProduct, c.Tol)},
	}
}

// GridShape is the n³ interior points, spacing h, the first at (h, h, h).
func (App) GridShape(v gridapp.Values) gridapp.Grid {
	p := ProblemOf(v)
	h := p.H()
	return gridapp.Grid{Shape: [3]int{p.N, p.N, p.N}, Origin: [3]float64{h, h, h}, Spacing: [3]float64{h, h, h}}
}

// DescribePart names the slab's planes along x ("planes [0,24)").
func (App) DescribePart(_ gridapp.Values, t gridapp.Task, rank int) string {
	parts, err := ranges(t)
	if err != nil || rank < 0 || rank >= len(parts) {
		return "?"
	}
	return "planes " + parts[rank].String()
}

// Serial is the plain serial reference (SerialSolve).
func (App) Serial(v gridapp.Values) ([]float64, int, float64, error) {
	u, iters, sigma := SerialSolve(ProblemOf(v))
	return u, iters, sigma, nil
}
