package poisson

import (
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/structured"
)

// Name is the name the Poisson application registers under.
const Name = "poisson"

func init() { gridapp.Register(Name, App{}) }

// App is the Poisson problem as a gridapp.Application: a structured-grid
// application (the n³ grid split in a×b×c blocks by the toolkit, one per
// node) whose local function is the 7-point Jacobi kernel, with its serial
// reference.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info { return toolkit.Info() }

// Params declares the application's parameters and the toolkit's "blocks".
func (App) Params() []gridapp.Param { return toolkit.Params() }

// Define splits the grid into blocks, one per node (the toolkit's).
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	return toolkit.Define(v, nodes)
}

// NewPart allocates a node's block (the toolkit's, with the local function).
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	return toolkit.NewPart(v, sub)
}

// Assemble gathers the blocks and measures the solution.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	return toolkit.Assemble(v, t, results)
}

// toolkit is the application as the structured-grid toolkit sees it.
var toolkit = &structured.App{
	Summary: "−Δu = f on (0,1)³ (exact solution known), Jacobi, a×b×c blocks",
	Parameters: []gridapp.Param{
		gridapp.IntParam("n", 32, 1, MaxN, "interior points per axis"),
		gridapp.FloatParam("eps", 1e-8, 0, math.MaxFloat64, "tolerance on σ = max|u'−u|").Above(),
	},
	Setup:   setup,
	Local:   newLocal,
	Measure: measure,
}

// ProblemOf returns the problem the values describe.
func ProblemOf(v gridapp.Values) Problem { return Problem{N: v.Int("n"), Eps: v.Float("eps")} }

// setup gives the toolkit the n³ grid (zero boundary and initial values)
// and the threshold.
func setup(v gridapp.Values) (structured.Setup, error) {
	p := ProblemOf(v)
	if err := p.Validate(); err != nil {
		return structured.Setup{}, err
	}
	return structured.Setup{Grid: structured.Grid{N: []int{p.N, p.N, p.N}, Ghost: 1}, Eps: p.Eps}, nil
}

// local is a block's local function: h²f on its points and the kernel.
type local struct{ hhf []float64 }

func newLocal(v gridapp.Values, b *structured.Block) (structured.Local, error) {
	h := ProblemOf(v).H()
	l := &local{hhf: b.NewField()}
	b.Box.Each(func(i, j, k int) { l.hhf[b.Layout.At(i, j, k)] = hhLoad(h, i+1, j+1, k+1) })
	return l, nil
}

// GridShape is the n³ interior points, spacing h, the first at (h, h, h).
func (App) GridShape(v gridapp.Values) gridapp.Grid {
	p := ProblemOf(v)
	h := p.H()
	return gridapp.Grid{Shape: [3]int{p.N, p.N, p.N}, Origin: [3]float64{h, h, h}, Spacing: [3]float64{h, h, h}}
}

// DescribePart names the block's box of points.
func (App) DescribePart(v gridapp.Values, t gridapp.Task, rank int) string {
	return toolkit.DescribePart(v, t, rank)
}

// Sweep is SerialSweep's update on box: Jacobi7 with rhs = h²f.
func (l *local) Sweep(b *structured.Block, box structured.Box) float64 {
	return structured.Jacobi7(b.Next, b.U, l.hhf, b.Layout, box)
}

// measure gives the solution's true residual, its error against the exact
// solution, and its checksum.
func measure(v gridapp.Values, s structured.Solution) (gridapp.Result, error) {
	p := ProblemOf(v)
	u := s.Levels[0]
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
