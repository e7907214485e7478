package solve

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
)

// rodApp is a second application for the engine's tests: −u″ = 1 on (0,1)
// with Jacobi on n points, split along the chain, that can misbehave on one
// rank at one iteration (fault: panic, nan, grow — Outgoing changes length).
type rodApp struct{}

func init() { gridapp.Register("test-rod", rodApp{}) }

func (rodApp) Info() gridapp.Info { return gridapp.Info{Summary: "−u″ = 1, Jacobi (engine tests)"} }

func (rodApp) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 40, 1, 1<<20, "points"),
		gridapp.FloatParam("eps", 1e-9, 0, 1, "tolerance").Above(),
		gridapp.StringParam("fault", "none", []string{"none", "panic", "nan", "grow", "halo", "swap"}, "misbehaviour"),
		gridapp.IntParam("fault_rank", 0, 0, 1<<10, "rank that misbehaves"),
		gridapp.IntParam("fault_iter", 5, 1, 1<<30, "sweep at which it does"),
		gridapp.IntParam("steps", 1, 1, 10, "outer steps of the task (the part cannot advance)"),
		gridapp.IntParam("first", 0, 0, 1<<20, "points of rank 0's segment (0: an even split)"),
	}
}

type rodSpec struct {
	Lo, Hi int
	Fault  bool
}

func (rodApp) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	ranges, err := rodSplit(v.Int("n"), v.Int("first"), len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: v.Float("eps"), Steps: v.Int("steps")}
	for r, rg := range ranges {
		spec, _ := json.Marshal(rodSpec{Lo: rg.Lo, Hi: rg.Hi, Fault: v.String("fault") != "none" && r == v.Int("fault_rank")})
		ps := gridapp.PartSpec{Spec: spec, Size: rg.Len()}
		if r > 0 {
			ps.Neighbours = append(ps.Neighbours, r-1)
		}
		if r < len(ranges)-1 {
			ps.Neighbours = append(ps.Neighbours, r+1)
		}
		t.Parts = append(t.Parts, ps)
	}
	return t, nil
}

// rodSplit splits n points evenly, or gives rank 0 the first ones and
// splits the rest evenly among the other ranks.
func rodSplit(n, first, parts int) ([]gridapp.Range, error) {
	if first == 0 || parts == 1 {
		return gridapp.Split(n, parts)
	}
	rest, err := gridapp.Split(n-first, parts-1)
	if err != nil {
		return nil, err
	}
	out := []gridapp.Range{{Lo: 0, Hi: first}}
	for _, r := range rest {
		out = append(out, gridapp.Range{Lo: r.Lo + first, Hi: r.Hi + first})
	}
	return out, nil
}

type rodPart struct {
	u, next   []float64 // u[0] and u[m+1] are the halos
	hh        float64
	lowerNb   bool // neighbour 0 is the lower one
	fault     string
	faultAt   int
	iter      int
	grown     []float64
	grownHalo []float64
	received  int
	nbs       int // neighbours
}

func (rodApp) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s rodSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, err
	}
	h := 1.0 / float64(v.Int("n")+1)
	p := &rodPart{u: make([]float64, s.Hi-s.Lo+2), next: make([]float64, s.Hi-s.Lo+2),
		hh: float64(h * h), lowerNb: s.Lo > 0, faultAt: v.Int("fault_iter"), nbs: len(sub.Neighbours)}
	if s.Fault {
		p.fault = v.String("fault")
	}
	return p, nil
}

func (p *rodPart) Sweep() float64 {
	p.iter++
	if p.iter == p.faultAt {
		switch p.fault {
		case "panic":
			var empty []float64
			return empty[p.iter] // an index out of range, as a real bug would
		case "nan":
			return math.NaN()
		case "grow":
			p.grown = make([]float64, 7)
		case "halo":
			p.grownHalo = make([]float64, 7)
		case "swap":
			p.grownHalo = make([]float64, 1) // the same length, another buffer
		}
	}
	var sigma float64
	m := len(p.u) - 1
	for i := 1; i < m; i++ {
		p.next[i] = (p.u[i-1] + p.u[i+1] + p.hh) / 2
		sigma = max(sigma, math.Abs(p.next[i]-p.u[i]))
	}
	copy(p.u[1:m], p.next[1:m]) // u's ghost cells are the halos: Halo returns the same slices for the whole run
	return sigma
}

func (p *rodPart) lower(i int) bool { return i == 0 && p.lowerNb }

func (p *rodPart) Outgoing(i int) []float64 {
	if p.grown != nil {
		return p.grown
	}
	if p.lower(i) {
		return p.u[1:2]
	}
	return p.u[len(p.u)-2 : len(p.u)-1]
}

func (p *rodPart) Halo(i int) []float64 {
	if p.grownHalo != nil {
		return p.grownHalo
	}
	if p.lower(i) {
		return p.u[0:1]
	}
	return p.u[len(p.u)-1:]
}

func (p *rodPart) Received(int)      { p.received++ }
func (p *rodPart) Result() []float64 { return p.u[1 : len(p.u)-1] }
func (p *rodPart) Close()            {}

func (rodApp) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	var u []float64
	for _, r := range results {
		u = append(u, r...)
	}
	return gridapp.Result{Solution: u, OK: true}, nil
}

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
		"panic async": {"panic", Asynchronous, "solve_app_test.go:"},
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
