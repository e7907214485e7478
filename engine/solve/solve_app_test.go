package solve

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/internal/testrod"
)

func init() { testrod.Register() }

// TestSolveOtherApplication runs an application other than the obstacle
// problem through the engine: synchronous runs give the values of the
// in-process synchronous iteration (gridapp.RunLocal) after as many sweeps,
// and the asynchronous schemes converge.
func TestSolveOtherApplication(t *testing.T) {
	params := map[string]string{"n": "40", "eps": "1e-9"}
	app, _ := gridapp.Lookup("test-rod")
	for name, c := range map[string]chainRun{
		"sync tokens":     {ranks: 3, cores: 1, scheme: Synchronous},
		"sync switch":     {ranks: 3, cores: 1, scheme: Synchronous, detector: DetectSwitch},
		"async activity":  {ranks: 3, cores: 1, scheme: Asynchronous},
		"hybrid activity": {ranks: 3, cores: 1, scheme: Hybrid, asyncLink: func(r int) bool { return r == 1 }},
	} {
		t.Run(name, func(t *testing.T) {
			c.p, c.app, c.params = obstacle.Problem{N: 40, Eps: 1e-9}, "test-rod", params
			res, _ := c.run(t)
			var u []float64
			for _, r := range res {
				u = append(u, r.Values...)
			}
			if c.scheme != Synchronous {
				v, _ := gridapp.Parse(app.Params(), params)
				ref, err := gridapp.RunLocal(app, v, []gridapp.Node{{Name: "one", Cores: 1}})
				if err != nil {
					t.Fatal(err)
				}
				for i := range u {
					if math.Abs(u[i]-ref.Result.Solution[i]) > 1e-6 {
						t.Fatalf("value %d: %v, converged serial %v", i, u[i], ref.Result.Solution[i])
					}
				}
				return
			}
			p := map[string]string{"n": "40", "eps": "1e-9"}
			v, _ := gridapp.Parse(app.Params(), p)
			ref, err := runLocalFor(app, v, 3, res[0].Iterations)
			if err != nil {
				t.Fatal(err)
			}
			for i := range u {
				if u[i] != ref[i] {
					t.Fatalf("after %d sweeps value %d: %v, in-process %v", res[0].Iterations, i, u[i], ref[i])
				}
			}
		})
	}
}

// runLocalFor runs the in-process synchronous iteration for exactly iters
// sweeps (ε so small that it never stops earlier).
func runLocalFor(app gridapp.Application, v gridapp.Values, parts, iters int) ([]float64, error) {
	enc := v.Encode()
	enc["eps"] = "1e-300"
	v, err := gridapp.Parse(app.Params(), enc)
	if err != nil {
		return nil, err
	}
	run, err := gridapp.RunLocal(maxIterApp{app, iters}, v, make([]gridapp.Node, parts))
	return run.Result.Solution, err
}

// maxIterApp bounds an application's task to max iterations.
type maxIterApp struct {
	gridapp.Application
	max int
}

func (a maxIterApp) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	t, err := a.Application.Define(v, nodes)
	t.MaxIter = a.max
	return t, err
}

// TestSolveBadApplication: a part that panics, returns NaN, changes the
// length of what it sends or the length or buffer of a halo fails the run with an error that names the
// application (and, for a panic, where), never a hang or a crash.
func TestSolveBadApplication(t *testing.T) {
	for name, tc := range map[string]struct {
		fault  string
		scheme Scheme
		want   string
	}{
		"panic sync":  {"panic", Synchronous, `application failed "test-rod": panic: runtime error: index out of range [5] with length 0 at `},
		"nan async":   {"nan", Asynchronous, `application failed "test-rod": sweep 5 returned σ = NaN`},
		"nan sync":    {"nan", Synchronous, `application failed "test-rod": sweep 5 returned σ = NaN`},
		"grow async":  {"grow", Asynchronous, `application failed "test-rod": 7 outgoing values for rank`},
		"grow sync":   {"grow", Synchronous, `application failed "test-rod": 7 outgoing values for rank`},
		"halo sync":   {"halo", Synchronous, `application failed "test-rod": Halo(0), the halo of neighbour rank 0, holds 7 values, 1 at the start (Halo must return the same slice for the whole run)`},
		"halo async":  {"halo", Asynchronous, `holds 7 values, 1 at the start (Halo must return the same slice`},
		"swap sync":   {"swap", Synchronous, `application failed "test-rod": Halo(0), the halo of neighbour rank 0, returned another buffer than at the start`},
		"swap async":  {"swap", Asynchronous, `application failed "test-rod": Halo(0), the halo of neighbour rank 0, returned another buffer than at the start`},
		"panic async": {"panic", Asynchronous, "testrod/rod.go:"},
	} {
		t.Run(name, func(t *testing.T) {
			c := chainRun{p: obstacle.Problem{N: 40, Eps: 1e-9}, ranks: 3, cores: 1, scheme: tc.scheme, app: "test-rod",
				params: map[string]string{"fault": tc.fault, "fault_rank": "1", "fault_iter": "5"}}
			_, _, errs := c.runAll(t)
			var found bool
			for r, err := range errs {
				if err != nil && strings.Contains(err.Error(), tc.want) {
					found = true
					if tc.fault != "grow" && (r != 1 || !errors.Is(err, ErrApplication)) {
						t.Errorf("rank %d failed with %v, want rank 1 and ErrApplication", r, err)
					}
					checkPrefixesOnce(t, err.Error(), r)
				}
			}
			if !found {
				t.Fatalf("errors %v, want one containing %q", errs, tc.want)
			}
		})
	}
}
