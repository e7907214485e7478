package solve

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// defaultApp is the application of a Subtask that names none.
const defaultApp = "obstacle"

// ErrApplication is wrapped when the application fails the run: a panic in
// one of its methods, a NaN σ, a Define or NewPart error, a result or halo
// of the wrong size.
var ErrApplication = errors.New("engine: application failed")

// builtPart is a worker's part and what its application's task says of it.
type builtPart struct {
	app        string
	part       gridapp.Part
	neighbours []int
	graph      [][]int // every part's neighbours
	eps        float64
	maxIter    int
	steps      int
	size       int
}

// appFault carries an application's failure out of the solver's loop (a
// NaN σ) to Solve, which turns it into the run's error.
type appFault struct{ err error }

// buildPart defines the task with the Subtask's application and builds this
// rank's part: the worker side of "receive sub-tasks" and "distribute
// sub-tasks on the different cores" (GRIDHPC Fig. 4). The obstacle problem
// is described by Subtask.Problem when Params is nil.
func buildPart(t Subtask) (bp builtPart, err error) {
	bp.app = t.App
	if bp.app == "" {
		bp.app = defaultApp
	}
	app, err := gridapp.Lookup(bp.app)
	if err != nil {
		return bp, err
	}
	params := t.Params
	if params == nil && bp.app == defaultApp {
		p := t.Problem.WithDefaults()
		if err := p.Validate(); err != nil {
			return bp, err
		}
		params = map[string]string{"n": strconv.Itoa(p.N), "eps": strconv.FormatFloat(p.Eps, 'g', -1, 64)}
		bp.maxIter = p.MaxIter
	}
	v, err := gridapp.Parse(app.Params(), params)
	if err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w %q: panic while building the part: %v%s", ErrApplication, bp.app, r, panicSite())
		}
	}()
	nodes := make([]gridapp.Node, t.Ranks)
	for r := range nodes {
		nodes[r] = gridapp.Node{Name: "rank " + strconv.Itoa(r), Cores: max(t.Cores, 1)}
	}
	if t.Node != "" && t.Rank >= 0 && t.Rank < len(nodes) {
		nodes[t.Rank].Name, nodes[t.Rank].Cluster = t.Node, t.Cluster
	}
	task, err := app.Define(v, nodes)
	if err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	if len(task.Parts) != t.Ranks {
		return bp, fmt.Errorf("%w %q: %d parts for %d nodes", ErrApplication, bp.app, len(task.Parts), t.Ranks)
	}
	if err := gridapp.CheckGraph(task.Parts); err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	if !(task.Eps > 0) {
		return bp, fmt.Errorf("%w %q: task threshold ε = %g, want ε > 0", ErrApplication, bp.app, task.Eps)
	}
	ps := task.Parts[t.Rank]
	sub := gridapp.Subtask{Rank: t.Rank, Ranks: t.Ranks, Neighbours: ps.Neighbours, Cores: max(t.Cores, 1), Spec: ps.Spec}
	if t.Rank >= 0 && t.Rank < len(nodes) {
		sub.Node = nodes[t.Rank]
	}
	if bp.part, err = app.NewPart(v, sub); err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	bp.steps = task.StepCount()
	if _, ok := bp.part.(gridapp.Stepper); !ok && bp.steps > 1 {
		bp.part.Close()
		return bp, fmt.Errorf("%w %q: a task of %d steps, but the part has no Advance (gridapp.Stepper)", ErrApplication, bp.app, bp.steps)
	}
	bp.neighbours, bp.eps, bp.size = ps.Neighbours, task.Eps, ps.Size
	bp.graph = make([][]int, len(task.Parts))
	for r, p := range task.Parts {
		bp.graph[r] = p.Neighbours
	}
	if task.MaxIter > 0 && (bp.maxIter == 0 || task.MaxIter < bp.maxIter) {
		bp.maxIter = task.MaxIter
	}
	return bp, nil
}

// fault turns a panic recovered in Solve into the run's error: the
// application's (a NaN σ, a gridapp.Failure, or a panic in its code) — it
// names the application and, for a panic, where it panicked.
func (s *solver) fault(r any) error {
	if f, ok := r.(appFault); ok {
		return fmt.Errorf("%w %q: %w", ErrApplication, s.app, f.err)
	}
	if f, ok := r.(gridapp.Failure); ok {
		return fmt.Errorf("%w %q: %w", ErrApplication, s.app, f.Err)
	}
	return fmt.Errorf("%w %q: panic: %v%s", ErrApplication, s.app, r, panicSite())
}

// result copies the part's Result.
func (s *solver) result() (v []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.fault(r)
			if _, ok := r.(gridapp.Failure); !ok {
				err = fmt.Errorf("%w %q: panic in Result: %v%s", ErrApplication, s.app, r, panicSite())
			}
		}
	}()
	return append([]float64(nil), s.part.Result()...), nil
}

// panicSite returns " at file:line" of the function that panicked, read from
// the stack of a deferred recover, or "".
func panicSite() string {
	lines := bytes.Split(debug.Stack(), []byte("\n"))
	for i, l := range lines {
		if !bytes.HasPrefix(l, []byte("panic(")) {
			continue
		}
		for f := i + 2; f+1 < len(lines); f += 2 { // function line, then its file:line
			if bytes.HasPrefix(lines[f], []byte("runtime.")) {
				continue
			}
			loc := bytes.TrimSpace(lines[f+1])
			if j := bytes.LastIndexByte(loc, ' '); j > 0 {
				loc = loc[:j]
			}
			return " at " + string(loc)
		}
	}
	return ""
}
