package gridapp

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

func testParams() []Param {
	return []Param{
		IntParam("n", 48, 1, 4096, "points per axis"),
		FloatParam("eps", 1e-8, 0, 1, "tolerance").Above(),
		StringParam("order", "xyz", []string{"xyz", "zyx"}, "sweep order"),
		BoolParam("force", false, "skip the check"),
	}
}

func TestParse(t *testing.T) {
	tests := map[string]struct {
		given map[string]string
		want  string // error substring, "" for success
	}{
		"defaults":       {nil, ""},
		"all":            {map[string]string{"n": "64", "eps": "1e-11", "order": "zyx", "force": "yes"}, ""},
		"unknown":        {map[string]string{"m": "3"}, "unknown parameter m (declared: n, eps, order, force)"},
		"not int":        {map[string]string{"n": "4.5"}, `n: "4.5" is not an integer`},
		"int range":      {map[string]string{"n": "0"}, "n: 0 is outside 1…4096"},
		"open min":       {map[string]string{"eps": "0"}, "eps: 0 is outside (0, 1]"},
		"nan":            {map[string]string{"eps": "NaN"}, "not a finite number"},
		"choice":         {map[string]string{"order": "yxz"}, `order: "yxz" is not one of xyz, zyx`},
		"bool":           {map[string]string{"force": "maybe"}, "not true or false"},
		"spaces trimmed": {map[string]string{"n": " 12 "}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v, err := Parse(testParams(), tc.given)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				back, err := Parse(testParams(), v.Encode())
				if err != nil || back.Int("n") != v.Int("n") || back.Float("eps") != v.Float("eps") ||
					back.String("order") != v.String("order") || back.Bool("force") != v.Bool("force") {
					t.Fatalf("Encode round trip: %v %v", back, err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrParam containing %q", err, tc.want)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	v, err := Parse(testParams(), map[string]string{"n": "64", "force": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("n") != 64 || v.Float("eps") != 1e-8 || v.String("order") != "xyz" || !v.Bool("force") {
		t.Fatalf("values %+v", v.v)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("reading an int as a float did not panic")
		}
	}()
	v.Float("n")
}

// TestParamHelpText: help texts show an integer range as it is typed and
// an empty default as none.
func TestParamHelpText(t *testing.T) {
	tests := map[string]struct {
		p                  Param
		rangeText, defText string
	}{
		"small int":     {IntParam("n", 48, 1, 4096, ""), "1…4096", "48"},
		"large int":     {IntParam("items", 1, 1, 100_000_000, ""), "1…100000000", "1"},
		"int32 max":     {IntParam("max_iter", 0, 0, math.MaxInt32, ""), "0…2147483647", "0"},
		"open float":    {FloatParam("dt", 1e-3, 0, 1e6, "").Above(), "(0, 1000000]", "0.001"},
		"small float":   {FloatParam("eps", 1e-8, 1e-12, 0.5, ""), "[1e-12, 0.5]", "1e-08"},
		"empty default": {StringParam("program", "", nil, ""), "any string", "none"},
		"choices":       {StringParam("graph", "chain", []string{"chain", "ring"}, ""), "one of chain, ring", "chain"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.p.Range(); got != tc.rangeText {
				t.Errorf("Range() = %q, want %q", got, tc.rangeText)
			}
			if got := tc.p.DefaultText(); got != tc.defText {
				t.Errorf("DefaultText() = %q, want %q", got, tc.defText)
			}
		})
	}
	_, err := Parse([]Param{IntParam("items", 1, 1, 100_000_000, "")}, map[string]string{"items": "0"})
	if err == nil || !strings.Contains(err.Error(), "0 is outside 1…100000000") {
		t.Errorf("error %v, want the range as typed", err)
	}
}

func TestParseBadDefault(t *testing.T) {
	_, err := Parse([]Param{IntParam("n", 0, 1, 10, "")}, nil)
	if err == nil || !strings.Contains(err.Error(), "declared default") {
		t.Fatalf("error %v, want the declared default blamed", err)
	}
}

func TestRegistry(t *testing.T) {
	Register("test-app", stubApp{})
	if _, err := Lookup("test-app"); err != nil {
		t.Fatal(err)
	}
	_, err := Lookup("nope")
	if !errors.Is(err, ErrUnknownApp) || !strings.Contains(err.Error(), "test-app") {
		t.Fatalf("Lookup(nope) = %v, want ErrUnknownApp listing the registered", err)
	}
	for name, f := range map[string]func(){
		"twice":    func() { Register("test-app", stubApp{}) },
		"bad name": func() { Register("Bad Name", stubApp{}) },
		"nil":      func() { Register("nil-app", nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

type stubApp struct{}

func (stubApp) Info() Info                                         { return Info{} }
func (stubApp) Params() []Param                                    { return nil }
func (stubApp) Define(Values, []Node) (Task, error)                { return Task{}, nil }
func (stubApp) NewPart(Values, Subtask) (Part, error)              { return nil, nil }
func (stubApp) Assemble(Values, Task, [][]float64) (Result, error) { return Result{}, nil }

func TestCheckGraph(t *testing.T) {
	g := func(nbs ...[]int) []PartSpec {
		out := make([]PartSpec, len(nbs))
		for i, n := range nbs {
			out[i].Neighbours = n
		}
		return out
	}
	tests := map[string]struct {
		parts []PartSpec
		want  string
	}{
		"single":       {g(nil), ""},
		"chain":        {g([]int{1}, []int{0, 2}, []int{1}), ""},
		"2x2 blocks":   {g([]int{1, 2}, []int{0, 3}, []int{0, 3}, []int{1, 2}), ""},
		"empty":        {nil, "no parts"},
		"out of range": {g([]int{1}), "names neighbour 1 of 1 parts"},
		"self":         {g([]int{0}), "names itself"},
		"twice":        {g([]int{1, 1}, []int{0}), "twice"},
		"asymmetric":   {g([]int{1}, nil), "does not name"},
		"disconnected": {g([]int{1}, []int{0}, []int{3}, []int{2}), "part 2 is not connected"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := CheckGraph(tc.parts)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrGraph) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrGraph containing %q", err, tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	rs, err := Split(10, 3)
	if err != nil || len(rs) != 3 || rs[0] != (Range{0, 4}) || rs[1] != (Range{4, 7}) || rs[2] != (Range{7, 10}) {
		t.Fatalf("Split(10, 3) = %v, %v", rs, err)
	}
	for _, parts := range []int{0, 11} {
		if _, err := Split(10, parts); !errors.Is(err, ErrSplit) {
			t.Errorf("Split(10, %d) error %v, want ErrSplit", parts, err)
		}
	}
}

func TestPool(t *testing.T) {
	for _, cores := range []int{0, 1, 3} {
		p := NewPool(cores)
		var calls atomic.Int64
		job := func(c int) float64 { calls.Add(1); return float64(c) }
		for range 5 {
			if got := p.Run(job); got != float64(max(cores, 1)-1) {
				t.Fatalf("%d cores: Run = %v", cores, got)
			}
		}
		if calls.Load() != int64(5*max(cores, 1)) {
			t.Fatalf("%d cores: %d calls", cores, calls.Load())
		}
		p.Close()
		p.Close()
		if got := p.Run(func(c int) float64 { return math.NaN() }); !math.IsNaN(got) {
			t.Fatalf("NaN σ lost after Close: %v", got)
		}
	}
}

// TestPoolPanic: a panic in a helper core's job comes out of Run on the
// caller (the environment recovers it there), and the pool still works.
func TestPoolPanic(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), "core 2: boom") {
				t.Fatalf("recovered %v, want core 2's panic", r)
			}
		}()
		p.Run(func(c int) float64 {
			if c == 2 {
				panic("boom")
			}
			return 0
		})
	}()
	if got := p.Run(func(c int) float64 { return float64(c) }); got != 2 {
		t.Fatalf("Run after a panic = %v", got)
	}
}

// stepApp is one part of one value that a sweep sets to its step number;
// its part advances (Stepper) unless noStepper.
type stepApp struct {
	steps     int
	noStepper bool
}

type stepPart struct {
	step, u  float64
	advances int
}

func (p *stepPart) Sweep() float64 {
	d := p.step - p.u
	p.u = p.step
	return max(d, -d)
}
func (p *stepPart) Outgoing(int) []float64 { return nil }
func (p *stepPart) Halo(int) []float64     { return nil }
func (p *stepPart) Result() []float64      { return []float64{p.u, float64(p.advances)} }
func (p *stepPart) Close()                 {}
func (p *stepPart) Advance()               { p.step++; p.advances++ }

func (a stepApp) Info() Info      { return Info{} }
func (a stepApp) Params() []Param { return nil }
func (a stepApp) Define(Values, []Node) (Task, error) {
	return Task{Eps: 0.5, Steps: a.steps, Parts: []PartSpec{{Size: 2}}}, nil
}
func (a stepApp) NewPart(Values, Subtask) (Part, error) {
	p := &stepPart{step: 1}
	if a.noStepper {
		return struct{ Part }{p}, nil
	}
	return p, nil
}
func (a stepApp) Assemble(_ Values, _ Task, r [][]float64) (Result, error) {
	return Result{Solution: r[0]}, nil
}

// TestRunLocalSteps: RunLocal iterates each step to convergence and
// advances the parts between steps, never after the last; a task of several
// steps whose part cannot advance is an application error.
func TestRunLocalSteps(t *testing.T) {
	run, err := RunLocal(stepApp{steps: 3}, Values{}, []Node{{Cores: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Result.Solution; got[0] != 3 || got[1] != 2 || run.Iterations != 6 || !run.Converged {
		t.Fatalf("u = %v after %d sweeps (converged %v); want step 3 after 2 advances and 6 sweeps", got, run.Iterations, run.Converged)
	}
	if _, err := RunLocal(stepApp{steps: 2, noStepper: true}, Values{}, []Node{{Cores: 1}}); !errors.Is(err, ErrApp) {
		t.Fatalf("a part without Advance: %v", err)
	}
	if _, err := RunLocal(stepApp{steps: 1, noStepper: true}, Values{}, []Node{{Cores: 1}}); err != nil {
		t.Fatalf("one step without Advance: %v", err)
	}
}

// TestAbsPaths: the submitter makes the relative values of file parameters
// absolute and leaves every other value, and the given map, alone.
func TestAbsPaths(t *testing.T) {
	params := []Param{FileParam("matrix", "a file"), StringParam("order", "xyz", nil, "not a file")}
	tests := map[string]struct {
		given, want map[string]string
	}{
		"relative":  {map[string]string{"matrix": "m/a.mtx", "order": "zyx"}, map[string]string{"matrix": "/sub/mit/m/a.mtx", "order": "zyx"}},
		"dot dot":   {map[string]string{"matrix": "../a.mtx"}, map[string]string{"matrix": "/sub/a.mtx"}},
		"absolute":  {map[string]string{"matrix": "/data/a.mtx"}, map[string]string{"matrix": "/data/a.mtx"}},
		"empty":     {map[string]string{"matrix": ""}, map[string]string{"matrix": ""}},
		"not given": {map[string]string{"order": "rel"}, map[string]string{"order": "rel"}},
		"nil":       {nil, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before := fmt.Sprint(tc.given)
			got := AbsPaths(params, tc.given, "/sub/mit")
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if fmt.Sprint(tc.given) != before {
				t.Fatalf("the given map changed: %v, was %v", tc.given, before)
			}
		})
	}
}

// TestHaloGuard: the same slice passes; another length, or another buffer
// of the same length (a slice of an iterate the part swaps), fails.
func TestHaloGuard(t *testing.T) {
	a, b := make([]float64, 4), make([]float64, 4)
	g := NewHaloGuard(2)
	for _, h := range [][]float64{a, a, a[:4:4]} {
		if err := g.Check(0, h); err != nil {
			t.Fatalf("the same halo refused: %v", err)
		}
	}
	if err := g.Check(0, b); !errors.Is(err, ErrApp) || !strings.Contains(err.Error(), "another buffer") {
		t.Errorf("another buffer: %v", err)
	}
	if err := g.Check(0, a[:3]); !errors.Is(err, ErrApp) {
		t.Errorf("another length: %v", err)
	}
	if err := g.Check(1, nil); err != nil {
		t.Errorf("an empty halo: %v", err)
	}
	if err := g.Check(1, b); !errors.Is(err, ErrApp) {
		t.Errorf("an empty halo that grew: %v", err)
	}
}
