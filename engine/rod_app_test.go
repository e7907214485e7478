package engine

// A copy of engine/solve's test application "test-rod" (solve_app_test.go),
// registered in this package's test binary too: its workers run it.

import (
	"encoding/json"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
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
		gridapp.StringParam("fault", "none", []string{"none", "panic", "nan", "grow"}, "misbehaviour"),
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
	u, next  []float64 // u[0] and u[m+1] are the halos
	hh       float64
	lowerNb  bool // neighbour 0 is the lower one
	fault    string
	faultAt  int
	iter     int
	grown    []float64
	received int
	nbs      int // neighbours
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
