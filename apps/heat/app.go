package heat

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Name is the name the heat application registers under.
const Name = "heat"

func init() { gridapp.Register(Name, App{}) }

// App is the heat equation as a gridapp.Application: the grid split in a×b
// tiles, one per node, each with up to four edge neighbours, and one outer
// step (gridapp.Task.Steps) per time step.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "u_t = Δu on (0,1)², implicit Euler steps each solved by Jacobi, a×b tiles; writes a ParaView series"}
}

// Params declares n, dt, steps, eps and blocks.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 32, 1, MaxN, "interior points per axis"),
		gridapp.FloatParam("dt", 1e-3, 0, 1e6, "time step").Above(),
		gridapp.IntParam("steps", 10, 1, MaxSteps, "implicit Euler time steps"),
		gridapp.FloatParam("eps", 1e-10, 0, math.MaxFloat64, "tolerance on σ = max|u'−u| of each step's iterations").Above(),
		gridapp.StringParam("blocks", "auto", nil, "decomposition a×b (e.g. 2x1; a·b = nodes) or auto").AsLayout(),
	}
}

// ProblemOf returns the problem the values describe.
func ProblemOf(v gridapp.Values) Problem {
	return Problem{N: v.Int("n"), DT: v.Float("dt"), Steps: v.Int("steps"), Eps: v.Float("eps")}
}

// tileSpec is the Spec of a tile's sub-task.
type tileSpec struct {
	Tile Tile
	Dirs []int
}

// Define splits the grid into the tiles, one per node.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	p := ProblemOf(v)
	if err := p.Validate(); err != nil {
		return gridapp.Task{}, err
	}
	bl := AutoBlocks(len(nodes))
	if s := v.String("blocks"); s != "auto" {
		var err error
		if bl, err = ParseBlocks(s); err != nil {
			return gridapp.Task{}, err
		}
	}
	if bl.Count() != len(nodes) {
		return gridapp.Task{}, fmt.Errorf("heat: blocks %v make %d tiles for %d nodes", bl, bl.Count(), len(nodes))
	}
	tiles, err := bl.Tiles(p.N)
	if err != nil {
		return gridapp.Task{}, fmt.Errorf("heat: n = %d is too small for blocks %v: %w", p.N, bl, err)
	}
	t := gridapp.Task{Eps: p.Eps, Steps: p.Steps, Parts: make([]gridapp.PartSpec, len(tiles))}
	for r, tile := range tiles {
		ranks, dirs := bl.Neighbours(r)
		spec, err := json.Marshal(tileSpec{Tile: tile, Dirs: dirs})
		if err != nil {
			return gridapp.Task{}, err
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: ranks, Spec: spec, Size: p.Steps*tile.Points() + p.Steps}
	}
	return t, nil
}

// NewPart allocates the tile of the sub-task.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s tileSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, fmt.Errorf("heat: sub-task %q: %w", sub.Spec, err)
	}
	if len(s.Dirs) != len(sub.Neighbours) {
		return nil, fmt.Errorf("heat: rank %d: %d sides for %d neighbours", sub.Rank, len(s.Dirs), len(sub.Neighbours))
	}
	return NewPart(ProblemOf(v), s.Tile, s.Dirs, sub.Cores)
}

// Gather gathers the tiles' results into the time series (uˢ, s = 1…Steps,
// each N² values) and the sweeps of each step on rank 0.
func Gather(p Problem, t gridapp.Task, results [][]float64) ([][]float64, []int, error) {
	n := p.N
	u := make([][]float64, p.Steps)
	for s := range u {
		u[s] = make([]float64, n*n)
	}
	var sweeps []int
	covered := 0
	for r, ps := range t.Parts {
		var s tileSpec
		if err := json.Unmarshal(ps.Spec, &s); err != nil {
			return nil, nil, fmt.Errorf("heat: part %d: %w", r, err)
		}
		tl, m := s.Tile, s.Tile.Points()
		if len(results[r]) != p.Steps*m+p.Steps {
			return nil, nil, fmt.Errorf("heat: part %d: %d values for %d steps of tile %v", r, len(results[r]), p.Steps, tl)
		}
		for st := range p.Steps {
			level := results[r][st*m : (st+1)*m]
			for i := tl.X.Lo; i < tl.X.Hi; i++ {
				copy(u[st][i*n+tl.Y.Lo:i*n+tl.Y.Hi], level[(i-tl.X.Lo)*tl.Y.Len():])
			}
		}
		if r == 0 {
			for _, k := range results[r][p.Steps*m:] {
				sweeps = append(sweeps, int(k))
			}
		}
		covered += m
	}
	if covered != n*n {
		return nil, nil, fmt.Errorf("heat: tiles cover %d of %d points", covered, n*n)
	}
	return u, sweeps, nil
}

// Assemble gathers the time series and measures it: the true residual of
// every step's system, the error of the last step against the discrete
// exact solution, the sweeps per step and a checksum. The Solution is the
// series, step after step.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	p := ProblemOf(v)
	u, sweeps, err := Gather(p, t, results)
	if err != nil {
		return gridapp.Result{}, err
	}
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
