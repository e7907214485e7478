package solve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/heat"
	"github.com/gridtui/gridtui/rmnp"
)

// heatCases are the heat equation's runs under every scheme and detector:
// tiles of 1, 2 and 4 nodes with 1 or 2 cores; hybrid runs have two
// clusters (tiles 0,1 and 2,3).
func heatCases() map[string]graphRun {
	cross := func(a, b int) bool { return a/2 != b/2 }
	return map[string]graphRun{
		"sync tokens 1x1 a=2":   {params: map[string]string{"blocks": "1x1"}, ranks: 1, cores: 2, scheme: Synchronous},
		"sync tokens 2x1 a=1":   {params: map[string]string{"blocks": "2x1"}, ranks: 2, cores: 1, scheme: Synchronous},
		"sync tokens 2x1 a=2":   {params: map[string]string{"blocks": "2x1"}, ranks: 2, cores: 2, scheme: Synchronous},
		"sync tokens 2x2 a=2":   {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 2, scheme: Synchronous},
		"sync switch 2x2":       {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Synchronous, detector: DetectSwitch},
		"async activity 2x2":    {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Asynchronous},
		"async switch 2x1":      {params: map[string]string{"blocks": "2x1"}, ranks: 2, cores: 2, scheme: Asynchronous, detector: DetectSwitch},
		"hybrid activity 2x2":   {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Hybrid, asyncLink: cross},
		"hybrid switch 2x2 a=2": {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 2, scheme: Hybrid, detector: DetectSwitch, asyncLink: cross},
	}
}

const heatEps = 1e-10

// runHeat runs c on the heat equation (n = 12, 3 time steps) and returns the
// assembled series, checking that it terminated with a true residual below
// ε in every step.
func runHeat(t *testing.T, c graphRun) ([]SolveResult, [][]float64, []int, heat.Problem) {
	t.Helper()
	c.app = heat.Name
	params := map[string]string{"n": "12", "steps": "3", "dt": "2e-3", "eps": strconv.FormatFloat(heatEps, 'g', -1, 64)}
	for k, v := range c.params {
		params[k] = v
	}
	c.params = params
	res, task, v := c.run(t)
	results := make([][]float64, len(res))
	for r := range res {
		results[r] = res[r].Values
		if !res[r].Converged {
			t.Fatalf("rank %d did not converge (%d iterations)", r, res[r].Iterations)
		}
	}
	p := heat.ProblemOf(v)
	u, sweeps, err := heat.Gather(p, task, results)
	if err != nil {
		t.Fatal(err)
	}
	if r := heat.Residual(p, u); !(r < heatEps) {
		t.Fatalf("true residual %g ≥ ε (sweeps per step %v)", r, sweeps)
	}
	return res, u, sweeps, p
}

// TestHeatSteps runs the heat equation's time steps through the engine (the
// outer steps of gridapp.Task): synchronous runs equal the serial reference
// bit for bit in every step after as many sweeps per step, all ranks
// advancing together; asynchronous and hybrid runs end every step with a
// true residual below ε.
func TestHeatSteps(t *testing.T) {
	for name, c := range heatCases() {
		t.Run(name, func(t *testing.T) {
			res, u, sweeps, p := runHeat(t, c)
			if c.scheme != Synchronous {
				return
			}
			for r := range res {
				m := len(res[r].Values) - p.Steps
				if got := fmt.Sprint(res[r].Values[m:]); got != fmt.Sprint(res[0].Values[len(res[0].Values)-p.Steps:]) {
					t.Fatalf("rank %d swept %s per step, rank 0 %v", r, got, sweeps)
				}
			}
			serial, err := heat.SerialSolve(p, sweeps)
			if err != nil {
				t.Fatal(err)
			}
			for s := range u {
				for i := range u[s] {
					if u[s][i] != serial.U[s][i] {
						t.Fatalf("step %d (%v sweeps) value %d: %v, serial %v", s+1, sweeps, i, u[s][i], serial.U[s][i])
					}
				}
			}
			plain, _ := heat.SerialSolve(p, nil)
			t.Logf("sweeps per step %v (serial until σ < ε: %v)", sweeps, plain.Sweeps)
		})
	}
}

// longRepeats is how often the delayed-link runs repeat: 20 with
// GRIDTUI_LONG_TESTS=1, a few otherwise.
func longRepeats() int {
	if os.Getenv("GRIDTUI_LONG_TESTS") == "1" {
		return 20
	}
	return 3
}

// delayLink makes rank from sleep before every DATA send to rank to, so that
// to iterates on stale halos.
func delayLink(from, to int, d time.Duration) map[int]*solveHooks {
	return map[int]*solveHooks{from: {beforeSend: func(r int) {
		if r == to {
			time.Sleep(d)
		}
	}}}
}

// TestHeatDelayedLink repeats the asynchronous and hybrid runs with a slow
// link: every run terminates with a true residual below ε in every step.
func TestHeatDelayedLink(t *testing.T) {
	cross := func(a, b int) bool { return a/2 != b/2 }
	cases := map[string]graphRun{
		"async activity":  {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Asynchronous},
		"async switch":    {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Asynchronous, detector: DetectSwitch},
		"hybrid activity": {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Hybrid, asyncLink: cross},
		"hybrid switch": {params: map[string]string{"blocks": "2x2"}, ranks: 4, cores: 1, scheme: Hybrid, detector: DetectSwitch,
			asyncLink: cross},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.hooks = delayLink(0, 2, 200*time.Microsecond) // 0–2 crosses the clusters
			for i := range longRepeats() {
				c.cores = 1 + i%2
				runHeat(t, c)
			}
		})
	}
}

// TestHeatMaxIter: an iteration limit that cuts a time step ends the run on
// every rank, none converged, none waiting for a step that never comes: the
// ranks vote on each step's convergence before advancing.
func TestHeatMaxIter(t *testing.T) {
	for name, c := range map[string]graphRun{
		"sync tokens":    {ranks: 4, cores: 1, scheme: Synchronous},
		"async activity": {ranks: 4, cores: 1, scheme: Asynchronous},
		"async switch":   {ranks: 4, cores: 1, scheme: Asynchronous, detector: DetectSwitch},
	} {
		t.Run(name, func(t *testing.T) {
			c.app, c.maxIter = heat.Name, 50 // a step takes about 35 sweeps: the second is cut
			c.params = map[string]string{"n": "12", "steps": "3", "dt": "2e-3", "eps": "1e-10", "blocks": "2x2"}
			res, _, _ := c.run(t)
			for r := range res {
				if res[r].Converged || res[r].counted > 50 {
					t.Fatalf("rank %d: %d iterations, converged %v", r, res[r].Iterations, res[r].Converged)
				}
			}
			if c.scheme == Synchronous && res[0].Iterations != 50 {
				t.Fatalf("%d iterations, want the limit of 50", res[0].Iterations)
			}
		})
	}
}

// TestStepsWithoutStepper: a task of several steps whose part cannot
// advance fails on the worker with an error naming the application.
func TestStepsWithoutStepper(t *testing.T) {
	_, err := buildPart(Subtask{PartTask: definedTasks(t, "test-rod", map[string]string{"steps": "2"}, 1, 1)[0], Cores: 1})
	if !errors.Is(err, ErrApplication) || !strings.Contains(err.Error(), `"test-rod": a task of 2 steps, but the part has no Advance`) {
		t.Fatalf("error %v", err)
	}
}

// TestStepMessageDropsLeftovers: between two steps a part reads a link up
// to the step message it waits for, dropping what the finished detector
// left on it, and a step message of another step or kind is a protocol
// error.
func TestStepMessageDropsLeftovers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eps := chainRun{ranks: 2, scheme: Synchronous}.endpoints(t, ctx)
	s := &solver{ep: eps[1], t: Subtask{PartTask: PartTask{Rank: 1, Ranks: 2}},
		links: []*link{{side: 0, peer: 1, rank: 0, sync: true, ctrl: make([]byte, ctrlHeader+8)}}}
	send := func(kind ctrlKind, seq, arg uint64) {
		t.Helper()
		if err := eps[0].Send(ctx, 2, encodeCtrl(make([]byte, ctrlHeader), kind, seq, arg, nil), rmnp.CTRL); err != nil {
			t.Fatal(err)
		}
	}
	send(ctrlConv, 1, 40) // a token the detector left
	send(ctrlAck, 7, 0)   // an acknowledgement it left
	send(ctrlStepFence, 0, 1)
	send(ctrlStepVote, 1, 2) // the next step's: stays queued
	if m, err := s.stepMessage(ctx, 0, ctrlStepFence, 1); err != nil || m.kind != ctrlStepFence {
		t.Fatalf("fence: %v %v", m.kind, err)
	}
	if _, err := s.stepMessage(ctx, 0, ctrlStepGo, 2); !errors.Is(err, ErrTermination) {
		t.Fatalf("a vote where a decision is due: %v", err)
	}
}
