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
	parts := make([]Part, len(t.Parts))
	defer func() {
		for _, p := range parts {
			if p != nil {
				p.Close()
			}
		}
	}()
	for r, ps := range t.Parts {
		sub := Subtask{Rank: r, Ranks: len(t.Parts), Neighbours: ps.Neighbours, Cores: max(nodes[r].Cores, 1), Spec: ps.Spec, Node: nodes[r]}
		if parts[r], err = app.NewPart(v, sub); err != nil {
			return LocalRun{}, fmt.Errorf("part %d: %w", r, err)
		}
	}
	var run LocalRun
	guards := make([]*HaloGuard, len(parts))
	for r, ps := range t.Parts {
		guards[r] = NewHaloGuard(len(ps.Neighbours))
	}
	for step := 1; ; step++ {
		if err := iterateLocal(t, parts, guards, &run); err != nil {
			return run, err
		}
		if !run.Converged || step >= t.StepCount() {
			break
		}
		for r, p := range parts {
			st, ok := p.(Stepper)
			if !ok {
				return run, fmt.Errorf("%w: part %d: task of %d steps, but the part has no Advance (gridapp.Stepper)", ErrApp, r, t.StepCount())
			}
			st.Advance()
		}
	}
	results := make([][]float64, len(parts))
	for r, p := range parts {
		results[r] = p.Result()
		if len(results[r]) != t.Parts[r].Size {
			return run, fmt.Errorf("%w: part %d: result of %d values, announced %d", ErrApp, r, len(results[r]), t.Parts[r].Size)
		}
	}
	run.Result, err = app.Assemble(v, t, results)
	return run, err
}

// iterateLocal runs one step's synchronous iterations until the largest σ
// is below Task.Eps (Converged) or the run has done Task.MaxIter sweeps;
// with Task.Sweeps, the parts are swept that many times, then report σ = 0.
func iterateLocal(t Task, parts []Part, guards []*HaloGuard, run *LocalRun) error {
	run.Converged = false
	eps := t.Eps
	if t.Sweeps > 0 {
		eps = math.SmallestNonzeroFloat64
	}
	for k := 0; t.MaxIter == 0 || run.Iterations < t.MaxIter; k++ {
		if err := exchangeLocal(t, parts, guards); err != nil {
			return err
		}
		run.Sigma = 0
		for r, p := range parts {
			if t.Sweeps > 0 && k >= t.Sweeps {
				break // exactly Sweeps sweeps: σ = 0 from here on
			}
			sigma := p.Sweep()
			if math.IsNaN(sigma) {
				return fmt.Errorf("%w: part %d: sweep %d returned σ = NaN", ErrApp, r, run.Iterations+1)
			}
			run.Sigma = max(run.Sigma, sigma)
		}
		run.Iterations++
		if run.Sigma < eps {
			run.Converged = true
			return nil
		}
	}
	return nil
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
				return fmt.Errorf("part %d: %w", r, err)
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
