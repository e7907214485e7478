package heat

import (
	"fmt"
	"io"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/structured"
)

// Name is the name the heat application registers under.
const Name = "heat"

func init() { gridapp.Register(Name, App{}) }

// App is the heat equation as a gridapp.Application: a structured-grid
// application (the n² grid split in a×b tiles by the toolkit, one per
// node) with one outer step (gridapp.Task.Steps) per time step, whose local
// function is the 5-point Jacobi kernel; with its serial reference and its
// ParaView output.
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
	Summary: "u_t = Δu on (0,1)², implicit Euler steps each solved by Jacobi, a×b tiles; writes a ParaView series",
	Parameters: []gridapp.Param{
		gridapp.IntParam("n", 32, 1, MaxN, "interior points per axis"),
		gridapp.FloatParam("dt", 1e-3, 0, 1e6, "time step").Above(),
		gridapp.IntParam("steps", 10, 1, MaxSteps, "implicit Euler time steps"),
		gridapp.FloatParam("eps", 1e-10, 0, math.MaxFloat64, "tolerance on σ = max|u'−u| of each step's iterations").Above(),
	},
	Setup:   setup,
	Local:   newLocal,
	Measure: measure,
}

// ProblemOf returns the problem the values describe.
func ProblemOf(v gridapp.Values) Problem {
	return Problem{N: v.Int("n"), DT: v.Float("dt"), Steps: v.Int("steps"), Eps: v.Float("eps")}
}

// setup gives the toolkit the n² grid with u(0), zero boundary values, the
// steps, and asks for the whole series.
func setup(v gridapp.Values) (structured.Setup, error) { return setupOf(ProblemOf(v)) }

// setupOf is setup for a problem.
func setupOf(p Problem) (structured.Setup, error) {
	if err := p.Validate(); err != nil {
		return structured.Setup{}, err
	}
	h := p.H()
	g := structured.Grid{N: []int{p.N, p.N}, Ghost: 1, Initial: func(i, j, _ int) float64 { return Initial(h, i+1, j+1) }}
	return structured.Setup{Grid: g, Eps: p.Eps, Steps: p.Steps, Series: true}, nil
}

// local is a tile's local function: the previous time level and the
// kernel's coefficients.
type local struct {
	prev []float64
	r, d float64
}

func newLocal(v gridapp.Values, b *structured.Block) (structured.Local, error) {
	p := ProblemOf(v)
	l := &local{prev: b.NewField(), r: p.R(), d: p.diag()}
	copy(l.prev, b.U)
	return l, nil
}

// Sweep is SerialSweep's update on box: Jacobi5 with rhs = uˢ⁻¹, a = r,
// d = 1 + 4r.
func (l *local) Sweep(b *structured.Block, box structured.Box) float64 {
	return structured.Jacobi5(b.Next, b.U, l.prev, b.Layout, box, l.r, l.d)
}

// Advance keeps the step's solution as the previous time level; the next
// step's iterations start from it.
func (l *local) Advance(b *structured.Block) { copy(l.prev, b.U) }

// Checkpoint writes the previous time level (structured.LocalState).
func (l *local) Checkpoint(w io.Writer) error { return structured.WriteFloats(w, l.prev) }

// Restore reads the previous time level Checkpoint wrote.
func (l *local) Restore(r io.Reader) error {
	prev, err := structured.ReadFloats(r, len(l.prev))
	if err != nil {
		return err
	}
	if len(prev) != len(l.prev) {
		return fmt.Errorf("%w: heat: a previous level of %d values, the tile's %d", structured.ErrState, len(prev), len(l.prev))
	}
	copy(l.prev, prev)
	return nil
}

// Gather gathers the tiles' results into the time series (uˢ, s = 1…Steps,
// each N² values) and the sweeps of each step on rank 0.
func Gather(p Problem, t gridapp.Task, results [][]float64) ([][]float64, []int, error) {
	s, err := setupOf(p)
	if err != nil {
		return nil, nil, err
	}
	sol, err := structured.Gather(s, t, results)
	return sol.Levels, sol.Sweeps, err
}

// measure measures the time series: the true residual of
// every step's system, the error of the last step against the discrete
// exact solution, the sweeps per step and a checksum. The Solution is the
// series, step after step.
func measure(v gridapp.Values, s structured.Solution) (gridapp.Result, error) {
	p := ProblemOf(v)
	u, sweeps := s.Levels, s.Sweeps
	sol := make([]float64, 0, p.Steps*p.N*p.N)
	for _, us := range u {
		sol = append(sol, us...)
	}
	last := u[len(u)-1]
	res := Residual(p, u)
	return gridapp.Result{Solution: sol, Residual: res, OK: res < p.Eps, Figures: []gridapp.Figure{
		{Name: "max error of the last step against the discrete exact solution", Value: MaxError(p, p.Steps, last)},
		{Name: "sweeps per time step (rank 0)", Value: float64(sumInts(sweeps)), Text: fmt.Sprint(sweeps)},
		{Name: "sum of u at the last step", Value: Sum(last), Text: fmt.Sprintf("%.17g", Sum(last))},
	}}, nil
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// Serial is the plain serial reference (SerialSolve), its solution the
// series step after step.
func (App) Serial(v gridapp.Values) ([]float64, int, float64, error) {
	s, err := SerialSolve(ProblemOf(v), nil)
	if err != nil {
		return nil, 0, math.NaN(), err
	}
	var sol []float64
	for _, u := range s.U {
		sol = append(sol, u...)
	}
	return sol, s.Iterations(), s.Sigma, nil
}

// GridShape is the space-time block of the solution: the steps' levels
// (t = DT, 2·DT, …) along the first axis, each the n² interior points of
// the square, spacing h, along the other two.
func (App) GridShape(v gridapp.Values) gridapp.Grid {
	p := ProblemOf(v)
	h := p.H()
	return gridapp.Grid{Shape: [3]int{p.Steps, p.N, p.N}, Origin: [3]float64{p.DT, h, h}, Spacing: [3]float64{p.DT, h, h}}
}

// WriteOutput writes the series for ParaView: base.pvd and one
// base-NNNN.vti per level, u(0) included (see WriteSeries).
func (App) WriteOutput(v gridapp.Values, t gridapp.Task, res gridapp.Result, base string) ([]string, error) {
	p := ProblemOf(v)
	m := p.N * p.N
	if len(res.Solution) != p.Steps*m {
		return nil, fmt.Errorf("heat: solution of %d values for %d steps of %d points", len(res.Solution), p.Steps, m)
	}
	levels := [][]float64{InitialGrid(p)}
	for s := range p.Steps {
		levels = append(levels, res.Solution[s*m:(s+1)*m])
	}
	return WriteSeries(base, p, levels)
}
