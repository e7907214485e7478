package solve

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// ErrApplication is wrapped when the application fails the run: a panic in
// one of its methods, a NaN σ, a Define or NewPart error, a result or halo
// of the wrong size.
var ErrApplication = errors.New("engine: application failed")

// builtPart is a worker's part and its application's name.
type builtPart struct {
	app   string
	part  gridapp.Part
	steps int
}

// appFault carries an application's failure out of the solver's loop (a
// NaN σ) to Solve, which turns it into the run's error.
type appFault struct{ err error }

// buildPart builds this rank's part from its PartTask: the worker side of
// "receive sub-tasks" and "distribute sub-tasks on the different cores"
// (GRIDHPC Fig. 4). The task was defined once, at the submitter; the
// worker only checks what it received and calls NewPart.
func buildPart(t Subtask) (bp builtPart, err error) {
	bp.app = t.App
	app, err := gridapp.Lookup(bp.app)
	if err != nil {
		return bp, err
	}
	v, err := gridapp.Parse(app.Params(), t.Params)
	if err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	if !(t.Eps > 0) {
		return bp, fmt.Errorf("%w %q: task threshold ε = %g, want ε > 0", ErrApplication, bp.app, t.Eps)
	}
	if t.Rank < 0 || t.Rank >= t.Ranks {
		return bp, fmt.Errorf("%w %q: rank %d of %d", ErrApplication, bp.app, t.Rank, t.Ranks)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w %q: panic while building the part: %v%s", ErrApplication, bp.app, r, panicSite())
		}
	}()
	sub := gridapp.Subtask{Rank: t.Rank, Ranks: t.Ranks, Neighbours: t.Part.Neighbours, Cores: max(t.Cores, 1), Spec: t.Part.Spec,
		Node: gridapp.Node{Name: t.Node, Cluster: t.Cluster, Cores: max(t.Cores, 1)}}
	if bp.part, err = app.NewPart(v, sub); err != nil {
		return bp, fmt.Errorf("%w %q: %w", ErrApplication, bp.app, err)
	}
	bp.steps = max(t.Steps, 1)
	if _, ok := bp.part.(gridapp.Stepper); !ok && bp.steps > 1 {
		bp.part.Close()
		return bp, fmt.Errorf("%w %q: a task of %d steps, but the part has no Advance (gridapp.Stepper)", ErrApplication, bp.app, bp.steps)
	}
	return bp, nil
}

// DefineLocal defines a task where no submitter did: an in-process
// program's own engine (apps/exec's guest) runs an application whose task
// every rank derives alike from its parameters. Nodes are named by rank and
// given cores each. Anything else receives its PartTask from the submitter.
func DefineLocal(appName string, params map[string]string, ranks, cores int) ([]PartTask, error) {
	app, err := gridapp.Lookup(appName)
	if err != nil {
		return nil, err
	}
	v, err := gridapp.Parse(app.Params(), params)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrApplication, appName, err)
	}
	nodes := make([]gridapp.Node, ranks)
	for r := range nodes {
		nodes[r] = gridapp.Node{Name: "rank " + strconv.Itoa(r), Cores: max(cores, 1)}
	}
	task, err := app.Define(v, nodes)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrApplication, appName, err)
	}
	if len(task.Parts) != ranks {
		return nil, fmt.Errorf("%w %q: %d parts for %d nodes", ErrApplication, appName, len(task.Parts), ranks)
	}
	if err := gridapp.CheckGraph(task.Parts); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrApplication, appName, err)
	}
	return PartTasks(appName, v, task), nil
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
