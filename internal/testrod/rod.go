package testrod

import (
	"encoding/json"
	"math"
	"sync"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// App is "test-rod": −u″ = 1 on (0,1) with Jacobi on n points, split
// along the chain, that can misbehave on one rank at one iteration (fault:
// panic, nan, grow — Outgoing changes length —, halo — Halo changes
// length —, swap — Halo returns another buffer).
type App struct{}

// Register registers App as "test-rod", once per process.
func Register() { once.Do(func() { gridapp.Register(Name, App{}) }) }

// Name is the application's name.
const Name = "test-rod"

var once sync.Once

// Info describes the application.
func (App) Info() gridapp.Info { return gridapp.Info{Summary: "−u″ = 1, Jacobi (engine tests)"} }

// Params are n, eps, the fault's, steps and first.
func (App) Params() []gridapp.Param {
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

// Define splits the rod into one segment per node.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
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

// Part is one segment.
type Part struct {
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

// NewPart allocates the segment with its two halos.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s rodSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, err
	}
	h := 1.0 / float64(v.Int("n")+1)
	p := &Part{u: make([]float64, s.Hi-s.Lo+2), next: make([]float64, s.Hi-s.Lo+2),
		hh: float64(h * h), lowerNb: s.Lo > 0, faultAt: v.Int("fault_iter"), nbs: len(sub.Neighbours)}
	if s.Fault {
		p.fault = v.String("fault")
	}
	return p, nil
}

// Sweep is one Jacobi sweep (or the fault at its iteration).
func (p *Part) Sweep() float64 {
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

func (p *Part) lower(i int) bool { return i == 0 && p.lowerNb }

// Outgoing is the end value neighbour i needs.
func (p *Part) Outgoing(i int) []float64 {
	if p.grown != nil {
		return p.grown
	}
	if p.lower(i) {
		return p.u[1:2]
	}
	return p.u[len(p.u)-2 : len(p.u)-1]
}

// Halo is the ghost cell beyond that end.
func (p *Part) Halo(i int) []float64 {
	if p.grownHalo != nil {
		return p.grownHalo
	}
	if p.lower(i) {
		return p.u[0:1]
	}
	return p.u[len(p.u)-1:]
}

// Received counts the halos received.
func (p *Part) Received(int) { p.received++ }

// Result is the segment's values.
func (p *Part) Result() []float64 { return p.u[1 : len(p.u)-1] }

// Close does nothing.
func (p *Part) Close() {}

// Neighbours is the segment's neighbour count (1 or 2 on the chain).
func (p *Part) Neighbours() int { return p.nbs }

// Assemble joins the segments.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	var u []float64
	for _, r := range results {
		u = append(u, r...)
	}
	return gridapp.Result{Solution: u, OK: true}, nil
}
