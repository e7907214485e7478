package poisson

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Name is the name the Poisson application registers under.
const Name = "poisson"

func init() { gridapp.Register(Name, App{}) }

// App is the Poisson problem as a gridapp.Application: the grid split in
// a×b×c blocks, one per node, each with up to six face neighbours.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "−Δu = f on (0,1)³ (exact solution known), Jacobi, a×b×c blocks"}
}

// Params declares n, eps and blocks.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 32, 1, MaxN, "interior points per axis"),
		gridapp.FloatParam("eps", 1e-8, 0, math.MaxFloat64, "tolerance on σ = max|u'−u|").Above(),
		gridapp.StringParam("blocks", "auto", nil, "decomposition a×b×c (e.g. 2x2x1; a·b·c = nodes) or auto").AsLayout(),
	}
}

// ProblemOf returns the problem the values describe.
func ProblemOf(v gridapp.Values) Problem { return Problem{N: v.Int("n"), Eps: v.Float("eps")} }

// blockSpec is the Spec of a block's sub-task.
type blockSpec struct {
	Box  Box
	Dirs []int
}

// Define splits the grid into the blocks, one per node.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	p := ProblemOf(v)
	bl := AutoBlocks(len(nodes))
	if s := v.String("blocks"); s != "auto" {
		var err error
		if bl, err = ParseBlocks(s); err != nil {
			return gridapp.Task{}, err
		}
	}
	if bl.Count() != len(nodes) {
		return gridapp.Task{}, fmt.Errorf("poisson: blocks %v make %d blocks for %d nodes", bl, bl.Count(), len(nodes))
	}
	boxes, err := bl.Boxes(p.N)
	if err != nil {
		return gridapp.Task{}, fmt.Errorf("poisson: n = %d is too small for blocks %v: %w", p.N, bl, err)
	}
	t := gridapp.Task{Eps: p.Eps, Parts: make([]gridapp.PartSpec, len(boxes))}
	for r, box := range boxes {
		ranks, dirs := bl.Neighbours(r)
		spec, err := json.Marshal(blockSpec{Box: box, Dirs: dirs})
		if err != nil {
			return gridapp.Task{}, err
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: ranks, Spec: spec, Size: box.Points()}
	}
	return t, nil
}

// NewPart allocates the block of the sub-task.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s blockSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, fmt.Errorf("poisson: sub-task %q: %w", sub.Spec, err)
	}
	if len(s.Dirs) != len(sub.Neighbours) {
		return nil, fmt.Errorf("poisson: rank %d: %d faces for %d neighbours", sub.Rank, len(s.Dirs), len(sub.Neighbours))
	}
	return NewBlock(ProblemOf(v), s.Box, s.Dirs, sub.Cores)
}

// GridShape is the n³ interior points, spacing h, the first at (h, h, h).
func (App) GridShape(v gridapp.Values) gridapp.Grid {
	p := ProblemOf(v)
	h := p.H()
	return gridapp.Grid{Shape: [3]int{p.N, p.N, p.N}, Origin: [3]float64{h, h, h}, Spacing: [3]float64{h, h, h}}
}

// DescribePart names the block's box of points.
func (App) DescribePart(_ gridapp.Values, t gridapp.Task, rank int) string {
	var s blockSpec
	if rank < 0 || rank >= len(t.Parts) || json.Unmarshal(t.Parts[rank].Spec, &s) != nil {
		return "?"
	}
	return fmt.Sprintf("box %v×%v×%v", s.Box.X, s.Box.Y, s.Box.Z)
}

// Assemble gathers the blocks and measures the solution: its true residual,
// its error against the exact solution, and its checksum.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	p := ProblemOf(v)
	n := p.N
	u := make([]float64, n*n*n)
	covered := 0
	for r, ps := range t.Parts {
		var s blockSpec
		if err := json.Unmarshal(ps.Spec, &s); err != nil {
			return gridapp.Result{}, fmt.Errorf("poisson: part %d: %w", r, err)
		}
		b := s.Box
		if len(results[r]) != b.Points() {
			return gridapp.Result{}, fmt.Errorf("poisson: part %d: %d values for block %v", r, len(results[r]), b)
		}
		pos := 0
		for i := b.X.Lo; i < b.X.Hi; i++ {
			for j := b.Y.Lo; j < b.Y.Hi; j++ {
				copy(u[(i*n+j)*n+b.Z.Lo:(i*n+j)*n+b.Z.Hi], results[r][pos:pos+b.Z.Len()])
				pos += b.Z.Len()
			}
		}
		covered += b.Points()
	}
	if covered != len(u) {
		return gridapp.Result{}, fmt.Errorf("poisson: blocks cover %d of %d points", covered, len(u))
	}
	res := Residual(p, u)
	e := MaxError(p, u)
	return gridapp.Result{Solution: u, Residual: res, OK: res < p.Eps, Figures: []gridapp.Figure{
		{Name: "max error against the exact solution", Value: e},
		{Name: "sum of u", Value: Sum(p, u), Text: fmt.Sprintf("%.17g", Sum(p, u))},
	}}, nil
}

// Serial is the plain serial reference (SerialSolve).
func (App) Serial(v gridapp.Values) ([]float64, int, float64, error) {
	u, iters, sigma := SerialSolve(ProblemOf(v))
	return u, iters, sigma, nil
}
