package structured

import (
	"encoding/json"
	"fmt"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Setup is what an application's job values make of the grid and the task.
type Setup struct {
	Grid    Grid
	Eps     float64 // threshold of the local test σ < Eps
	MaxIter int     // bound on every node's sweeps (0: none)
	// Steps is the number of outer steps (e.g. time steps; 0 and 1: one),
	// between which every block's Local is advanced (Advancer).
	Steps int
	// Series keeps every step's solution: the Solution then holds one
	// level per step.
	Series bool
	// Sweeps > 0 asks for exactly that many sweeps of every block in every
	// step (gridapp.Task.Sweeps): a synchronous run then equals the serial
	// loop after the same sweeps bit for bit, whatever the detector's delay.
	Sweeps int
}

// Solution is the assembled solution the toolkit hands Measure.
type Solution struct {
	// Levels holds the global grid's values, x-major (point (i, j, k) at
	// (i·Ny + j)·Nz + k): one level per step of a Series, else one.
	Levels [][]float64
	// Sweeps holds the sweeps of each step on rank 0.
	Sweeps []int
}

// App is a structured-grid application: fill its fields and register it
// (gridapp.Register). It implements gridapp.Application: Define splits the
// grid into the "blocks" parameter's a×b×c (or the most cubic for the
// nodes), each node's Block exchanges its faces' Ghost layers with its
// neighbours and sweeps with Local on the node's cores, and Assemble
// gathers the blocks into global arrays for Measure.
type App struct {
	Summary string
	// Params are the application's parameters; the toolkit adds "blocks".
	Parameters []gridapp.Param
	// Setup reads the job's values (at the submitter and on every worker:
	// keep it cheap, no grid-sized allocation).
	Setup func(v gridapp.Values) (Setup, error)
	// Local builds the block's local function on the worker (its own
	// fields sized with b.NewField and filled in global coordinates).
	Local func(v gridapp.Values, b *Block) (Local, error)
	// Measure measures the assembled solution: the true residual, the
	// figures, the check.
	Measure func(v gridapp.Values, s Solution) (gridapp.Result, error)
}

// blocksParam is the decomposition parameter every App has.
var blocksParam = gridapp.StringParam("blocks", "auto", nil, "decomposition a×b×c, one factor per axis of the grid (e.g. 2x2x1 or 2x1; product = nodes), or auto").AsLayout()

// Info describes the application.
func (a *App) Info() gridapp.Info { return gridapp.Info{Summary: a.Summary} }

// Params returns the application's parameters and "blocks".
func (a *App) Params() []gridapp.Param {
	return append(append([]gridapp.Param(nil), a.Parameters...), blocksParam)
}

// blockSpec is the Spec of a block's sub-task.
type blockSpec struct {
	Box  Box
	Dirs []int
}

// Decompose returns the blocks the values ask for (or the automatic ones)
// for the given nodes, and their boxes in rank order.
func Decompose(s Setup, v gridapp.Values, nodes int) (Blocks, []Box, error) {
	if err := s.Grid.Validate(); err != nil {
		return Blocks{}, nil, err
	}
	bl := AutoBlocks(nodes, s.Grid.Dims())
	if str := v.String("blocks"); str != "auto" {
		var err error
		if bl, err = ParseBlocks(str, s.Grid.Dims()); err != nil {
			return Blocks{}, nil, err
		}
	}
	if bl.Count() != nodes {
		return Blocks{}, nil, fmt.Errorf("blocks %v make %d blocks for %d nodes (%w)", bl, bl.Count(), nodes, ErrGrid)
	}
	boxes, err := bl.Boxes(s.Grid)
	return bl, boxes, err
}

// Define splits the grid into blocks, one per node, with their neighbour
// graph.
func (a *App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	s, err := a.Setup(v)
	if err != nil {
		return gridapp.Task{}, err
	}
	bl, boxes, err := Decompose(s, v, len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: s.Eps, MaxIter: s.MaxIter, Steps: s.Steps, Sweeps: s.Sweeps, Parts: make([]gridapp.PartSpec, len(boxes))}
	for r, box := range boxes {
		ranks, dirs := bl.Neighbours(r)
		spec, err := json.Marshal(blockSpec{Box: box, Dirs: dirs})
		if err != nil {
			return gridapp.Task{}, err
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: ranks, Spec: spec, Size: resultSize(s, box)}
	}
	return t, nil
}

// resultSize is the length of a block's Result.
func resultSize(s Setup, box Box) int {
	steps := max(s.Steps, 1)
	if s.Series {
		return steps*box.Points() + steps
	}
	return box.Points() + steps
}

// NewPart allocates the block of the sub-task and its Local.
func (a *App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	s, err := a.Setup(v)
	if err != nil {
		return nil, err
	}
	var spec blockSpec
	if err := json.Unmarshal(sub.Spec, &spec); err != nil {
		return nil, fmt.Errorf("structured: sub-task %q: %w", sub.Spec, err)
	}
	if len(spec.Dirs) != len(sub.Neighbours) {
		return nil, fmt.Errorf("%w: rank %d: %d faces for %d neighbours", ErrGrid, sub.Rank, len(spec.Dirs), len(sub.Neighbours))
	}
	for _, d := range spec.Dirs {
		if d < 0 || d >= 2*s.Grid.Dims() {
			return nil, fmt.Errorf("%w: rank %d: face %d of a %d-D grid", ErrGrid, sub.Rank, d, s.Grid.Dims())
		}
	}
	b, err := newBlock(s.Grid, spec.Box, spec.Dirs, sub.Cores)
	if err != nil {
		return nil, err
	}
	b.series, b.steps = s.Series, max(s.Steps, 1)
	if b.local, err = a.Local(v, b); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Assemble gathers the blocks into global arrays and hands them to
// Measure.
func (a *App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	s, err := a.Setup(v)
	if err != nil {
		return gridapp.Result{}, err
	}
	sol, err := Gather(s, t, results)
	if err != nil {
		return gridapp.Result{}, err
	}
	return a.Measure(v, sol)
}

// Gather places the blocks' results (in rank order) into the global
// arrays of a Solution.
func Gather(s Setup, t gridapp.Task, results [][]float64) (Solution, error) {
	g, steps := s.Grid, max(s.Steps, 1)
	levels := 1
	if s.Series {
		levels = steps
	}
	sol := Solution{Levels: make([][]float64, levels)}
	for i := range sol.Levels {
		sol.Levels[i] = make([]float64, g.Points())
	}
	global := Layout{SX: g.shape()[1] * g.shape()[2], SY: g.shape()[2], SZ: 1}
	covered := 0
	for r, ps := range t.Parts {
		var spec blockSpec
		if err := json.Unmarshal(ps.Spec, &spec); err != nil {
			return Solution{}, fmt.Errorf("structured: part %d: %w", r, err)
		}
		box, m := spec.Box, spec.Box.Points()
		if r >= len(results) || len(results[r]) != resultSize(s, box) || !inside(g.Box(), box) {
			return Solution{}, fmt.Errorf("%w: part %d: result of the wrong size for block %v", ErrGrid, r, box)
		}
		rs := runs(global, box)
		for lv := range levels {
			src := results[r][lv*m : (lv+1)*m]
			pos := 0
			for _, run := range rs {
				pos += copy(sol.Levels[lv][run.start:run.start+run.n], src[pos:])
			}
		}
		if r == 0 {
			for _, k := range results[r][levels*m:] {
				sol.Sweeps = append(sol.Sweeps, int(k))
			}
		}
		covered += m
	}
	if covered != g.Points() {
		return Solution{}, fmt.Errorf("%w: blocks cover %d of %d points", ErrGrid, covered, g.Points())
	}
	return sol, nil
}

// DescribePart names a block's box of points (the report's part column).
func (a *App) DescribePart(_ gridapp.Values, t gridapp.Task, rank int) string {
	var spec blockSpec
	if rank < 0 || rank >= len(t.Parts) || json.Unmarshal(t.Parts[rank].Spec, &spec) != nil {
		return "?"
	}
	return "box " + spec.Box.String()
}
