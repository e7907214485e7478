package gridapp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// rod solves −u″ = 1 on (0,1), u(0) = u(1) = 0, with Jacobi iterations on n
// interior points: the smallest complete application.
type rod struct{}

func (rod) Info() gridapp.Info { return gridapp.Info{Summary: "−u″ = 1 on (0,1), Jacobi"} }

func (rod) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.IntParam("n", 64, 1, 1<<20, "interior points"),
		gridapp.FloatParam("eps", 1e-10, 0, 1, "tolerance on max|u'−u|").Above(),
	}
}

// Define gives each node a contiguous range of points; its neighbours are
// the ranks before and after it.
func (rod) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	ranges, err := gridapp.Split(v.Int("n"), len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: v.Float("eps")}
	for r, rg := range ranges {
		spec, _ := json.Marshal(rg)
		var nbs []int
		if r > 0 {
			nbs = append(nbs, r-1)
		}
		if r < len(ranges)-1 {
			nbs = append(nbs, r+1)
		}
		t.Parts = append(t.Parts, gridapp.PartSpec{Neighbours: nbs, Spec: spec, Size: rg.Len()})
	}
	return t, nil
}

// rodPart holds u on its points plus one halo value on each side (zero at
// the boundary, where no neighbour writes it).
type rodPart struct {
	u, next []float64 // u[0] and u[m+1] are the halos
	hh      float64
	lower   bool // neighbour 0 is the lower one
}

func (rod) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var rg gridapp.Range
	if err := json.Unmarshal(sub.Spec, &rg); err != nil {
		return nil, err
	}
	h := 1.0 / float64(v.Int("n")+1)
	return &rodPart{u: make([]float64, rg.Len()+2), next: make([]float64, rg.Len()+2),
		hh: h * h, lower: rg.Lo > 0}, nil
}

func (p *rodPart) Sweep() float64 {
	var sigma float64
	for i := 1; i < len(p.u)-1; i++ {
		p.next[i] = (p.u[i-1] + p.u[i+1] + p.hh) / 2
		sigma = max(sigma, math.Abs(p.next[i]-p.u[i]))
	}
	// The new values back into u: its ghost cells are the halos, which
	// Halo must return the same slice of for the whole run.
	copy(p.u[1:len(p.u)-1], p.next[1:len(p.u)-1])
	return sigma
}

// side maps neighbour index i to 0 (lower) or 1 (upper).
func (p *rodPart) side(i int) int {
	if i == 0 && p.lower {
		return 0
	}
	return 1
}

func (p *rodPart) Outgoing(i int) []float64 {
	if p.side(i) == 0 {
		return p.u[1:2]
	}
	return p.u[len(p.u)-2 : len(p.u)-1]
}

func (p *rodPart) Halo(i int) []float64 {
	if p.side(i) == 0 {
		return p.u[0:1]
	}
	return p.u[len(p.u)-1:]
}

func (p *rodPart) Result() []float64 { return p.u[1 : len(p.u)-1] }
func (p *rodPart) Close()            {}

// Checkpoint and Restore make the rod survive a lost node
// (gridapp.Checkpointer): its whole state is u with its halos.
func (p *rodPart) Checkpoint(w io.Writer) error { return gridapp.WriteState(w, p.u) }
func (p *rodPart) Restore(r io.Reader) error    { return gridapp.ReadState(r, p.u) }

func (rod) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	var u []float64
	for _, r := range results {
		u = append(u, r...)
	}
	return gridapp.Result{Solution: u, OK: true}, nil
}

// The rod split over three nodes gives, iteration for iteration, the values
// of one node alone.
func Example() {
	gridapp.Register("rod-example", rod{})
	app, _ := gridapp.Lookup("rod-example")
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "30", "eps": "1e-9"})
	if err != nil {
		fmt.Println(err)
		return
	}
	one, _ := gridapp.RunLocal(app, v, []gridapp.Node{{Name: "a", Cores: 1}})
	three, _ := gridapp.RunLocal(app, v, []gridapp.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}})
	same := one.Iterations == three.Iterations
	for i := range one.Result.Solution {
		same = same && one.Result.Solution[i] == three.Result.Solution[i]
	}
	// Stopped after 100 iterations, checkpointed and restored into fresh
	// parts, the run continues bit for bit.
	restored := gridapp.CheckCheckpoints(app, v, []gridapp.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}}, 100)
	fmt.Println(one.Converged, same, restored)
	// Output: true true <nil>
}
