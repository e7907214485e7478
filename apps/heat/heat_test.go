package heat

import (
	"fmt"
	"math"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestSerialExact: the series follows the discrete exact solution u(0)·Decayˢ
// to about the tolerance, and each step needs iterations.
func TestSerialExact(t *testing.T) {
	p := Problem{N: 15, DT: 1e-3, Steps: 4, Eps: 1e-13}
	s, err := SerialSolve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.U) != p.Steps || !(s.Sigma < p.Eps) {
		t.Fatalf("%d levels, σ %g", len(s.U), s.Sigma)
	}
	for st, u := range s.U {
		if e := MaxError(p, st+1, u); !(e < 1e-11) {
			t.Errorf("step %d: error %g against the exact solution", st+1, e)
		}
		if s.Sweeps[st] < 5 {
			t.Errorf("step %d: %d sweeps", st+1, s.Sweeps[st])
		}
	}
	if r := Residual(p, s.U); !(r < p.Eps) {
		t.Errorf("residual %g", r)
	}
	if d := p.Decay(); !(d > 0.9 && d < 1) {
		t.Errorf("decay %g", d)
	}
	// A fixed schedule repeats the same values.
	again, _ := SerialSolve(p, s.Sweeps)
	for st := range s.U {
		for i := range s.U[st] {
			if again.U[st][i] != s.U[st][i] {
				t.Fatalf("step %d value %d differs with the schedule", st+1, i)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for name, p := range map[string]Problem{
		"n 0":      {N: 0, DT: 1, Steps: 1, Eps: 1},
		"dt 0":     {N: 4, DT: 0, Steps: 1, Eps: 1},
		"dt NaN":   {N: 4, DT: math.NaN(), Steps: 1, Eps: 1},
		"steps 0":  {N: 4, DT: 1, Steps: 0, Eps: 1},
		"too big":  {N: 4096, DT: 1, Steps: 100, Eps: 1},
		"eps 0":    {N: 4, DT: 1, Steps: 1, Eps: 0},
		"max_iter": {N: 4, DT: 1, Steps: 1, Eps: 1, MaxIter: -1},
	} {
		if p.Validate() == nil {
			t.Errorf("%s: %+v accepted", name, p)
		}
		if _, err := SerialSolve(p, nil); err == nil {
			t.Errorf("%s: solved", name)
		}
	}
	if _, err := SerialSolve(Problem{N: 4, DT: 1, Steps: 2, Eps: 1}, []int{1}); err == nil {
		t.Error("a schedule of 1 step for 2 accepted")
	}
}

// TestMaxIter: MaxIter cuts the series in the step it falls in.
func TestMaxIter(t *testing.T) {
	p := Problem{N: 7, DT: 1e-2, Steps: 5, Eps: 1e-12, MaxIter: 30}
	s, err := SerialSolve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Iterations() != 30 || len(s.U) >= p.Steps {
		t.Fatalf("%d sweeps over %d steps", s.Iterations(), len(s.U))
	}
}

func BenchmarkSerialSweep(b *testing.B) {
	p := Problem{N: 256, DT: 1e-4, Steps: 1, Eps: 1e-10}
	prev := InitialGrid(p)
	u, next := append([]float64(nil), prev...), make([]float64, len(prev))
	b.SetBytes(int64(8 * len(u)))
	for b.Loop() {
		SerialSweep(p, prev, u, next)
		u, next = next, u
	}
}

func BenchmarkPartSweep(b *testing.B) {
	p := Problem{N: 256, DT: 1e-4, Steps: 1, Eps: 1e-10}
	app, _ := gridapp.Lookup(Name)
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": fmt.Sprint(p.N), "dt": "1e-4", "steps": "1", "eps": "1e-10"})
	if err != nil {
		b.Fatal(err)
	}
	t, err := app.Define(v, nodes(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	q, err := app.NewPart(v, gridapp.Subtask{Ranks: 1, Cores: 1, Spec: t.Parts[0].Spec})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	b.SetBytes(int64(8 * 256 * 256))
	for b.Loop() {
		q.Sweep()
	}
}
