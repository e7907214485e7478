package gridapp

import (
	"errors"
	"fmt"
	"math"
)

// ErrApp is wrapped by errors that blame the application (a NaN σ, a halo
// whose length does not match its neighbour's outgoing values, a part whose
// result has the wrong size).
var ErrApp = errors.New("gridapp: application error")

// LocalRun is the outcome of RunLocal.
type LocalRun struct {
	Result     Result
	Iterations int
	Sigma      float64 // the largest local σ of the last iteration
	Converged  bool
}

// RunLocal runs a task in this process with the synchronous scheme's
// semantics and no network: in every iteration each part's halos receive
// its neighbours' values of the previous iteration, then every part sweeps;
// it stops after the first iteration whose largest σ is below Task.Eps (or
// at Task.MaxIter sweeps in all); a task of several steps (Task.Steps) does
// so for each step and advances every part (Stepper) between them. It is how
// an application is tested bit for bit against its serial reference before
// it ever meets a grid: the engine's synchronous runs compute the same
// values; they stop later, when the convergence tokens have gone round:
// exactly H + D sweeps after the first iteration at which every part had
// σ < Eps (in every step), H being the height of the detector's spanning
// tree at its root and D its depth — +2, +4, +6 sweeps for trees of depth
// 1, 2, 3. To compare at equal sweeps, stop every part after K sweeps
// (structured.Setup.Sweeps does).
func RunLocal(app Application, v Values, nodes []Node) (LocalRun, error) {
	t, err := app.Define(v, nodes)
	if err != nil {
		return LocalRun{}, err
	}
	if err := CheckGraph(t.Parts); err != nil {
		return LocalRun{}, err
	}
	parts, err := newLocalParts(app, v, t, nodes)
	defer closeParts(parts)
	if err != nil {
		return LocalRun{}, err
	}
	d := newLocalDrive(t)
	if _, err := d.drive(t, parts, 0); err != nil {
		return d.run, err
	}
	return d.finish(app, v, t, parts)
}

// newLocalParts builds every part of t on this process.
func newLocalParts(app Application, v Values, t Task, nodes []Node) ([]Part, error) {
	parts := make([]Part, len(t.Parts))
	for r, ps := range t.Parts {
		sub := Subtask{Rank: r, Ranks: len(t.Parts), Neighbours: ps.Neighbours, Cores: max(nodes[r].Cores, 1), Spec: ps.Spec, Node: nodes[r]}
		var err error
		if parts[r], err = app.NewPart(v, sub); err != nil {
			return parts, fmt.Errorf("part %d: %w", r, err)
		}
	}
	return parts, nil
}

// closeParts closes the parts built so far.
func closeParts(parts []Part) {
	for _, p := range parts {
		if p != nil {
			p.Close()
		}
	}
}

// localDrive is where a local run stands: its figures so far and its step.
type localDrive struct {
	run       LocalRun
	step      int          // steps advanced past
	stepStart int          // run.Iterations when this step began
	guards    []*HaloGuard // each part's Halo contract
}

// newLocalDrive is a local run of t at its start.
func newLocalDrive(t Task) *localDrive {
	d := &localDrive{guards: make([]*HaloGuard, len(t.Parts))}
	for r, ps := range t.Parts {
		d.guards[r] = NewHaloGuard(len(ps.Neighbours))
	}
	return d
}

// drive iterates the parts from where d stands, advancing them between
// steps, until the run ends (it returns false) or, when stopAt > 0, until
// stopAt iterations are done (at an iteration boundary, after any Advance:
// it returns true).
func (d *localDrive) drive(t Task, parts []Part, stopAt int) (paused bool, err error) {
	for ; ; d.step++ {
		paused, err := d.iterate(t, parts, stopAt)
		if err != nil || paused {
			return paused, err
		}
		if !d.run.Converged || d.step+1 >= t.StepCount() {
			return false, nil
		}
		for r, p := range parts {
			st, ok := p.(Stepper)
			if !ok {
				return false, fmt.Errorf("%w: part %d: task of %d steps, but the part has no Advance (gridapp.Stepper)", ErrApp, r, t.StepCount())
			}
			st.Advance()
		}
		d.stepStart = d.run.Iterations
	}
}

// finish gathers the parts' results and assembles them.
func (d *localDrive) finish(app Application, v Values, t Task, parts []Part) (LocalRun, error) {
	results := make([][]float64, len(parts))
	for r, p := range parts {
		results[r] = p.Result()
		if len(results[r]) != t.Parts[r].Size {
			return d.run, fmt.Errorf("%w: part %d: result of %d values, announced %d", ErrApp, r, len(results[r]), t.Parts[r].Size)
		}
	}
	var err error
	d.run.Result, err = app.Assemble(v, t, results)
	return d.run, err
}

// iterate runs one step's synchronous iterations until the largest σ is
// below Task.Eps (Converged) or the run has done Task.MaxIter sweeps, or
// pauses (true) at stopAt iterations when stopAt > 0; with Task.Sweeps, the
// parts are swept that many times in the step, then report σ = 0.
func (d *localDrive) iterate(t Task, parts []Part, stopAt int) (bool, error) {
	run := &d.run
	run.Converged = false
	eps := t.Eps
	if t.Sweeps > 0 {
		eps = math.SmallestNonzeroFloat64
	}
	for t.MaxIter == 0 || run.Iterations < t.MaxIter {
		if stopAt > 0 && run.Iterations >= stopAt {
			return true, nil
		}
		if err := exchangeLocal(t, parts, d.guards); err != nil {
			return false, err
		}
		run.Sigma = 0
		swept := run.Iterations - d.stepStart
		for r, p := range parts {
			if t.Sweeps > 0 && swept >= t.Sweeps {
				break // exactly Sweeps sweeps: σ = 0 from here on
			}
			sigma := p.Sweep()
			if math.IsNaN(sigma) {
				return false, fmt.Errorf("%w: part %d: sweep %d returned σ = NaN", ErrApp, r, run.Iterations+1)
			}
			run.Sigma = max(run.Sigma, sigma)
		}
		run.Iterations++
		if run.Sigma < eps {
			run.Converged = true
			return false, nil
		}
	}
	return false, nil
}

// exchangeLocal copies every part's outgoing values into its neighbours'
// halos (all before any sweep, since Outgoing may alias the iterate),
// checking the Halo contract.
func exchangeLocal(t Task, parts []Part, guards []*HaloGuard) error {
	for r, p := range parts {
		for i, q := range t.Parts[r].Neighbours {
			j := indexOf(t.Parts[q].Neighbours, r)
			src, dst := parts[q].Outgoing(j), p.Halo(i)
			if err := guards[r].Check(i, dst); err != nil {
				return fmt.Errorf("part %d, neighbour part %d: %w", r, q, err)
			}
			if len(src) != len(dst) {
				return fmt.Errorf("%w: part %d sends %d values to part %d, whose halo holds %d", ErrApp, q, len(src), r, len(dst))
			}
			copy(dst, src)
			if hr, ok := p.(HaloReceiver); ok {
				hr.Received(i)
			}
		}
	}
	return nil
}
