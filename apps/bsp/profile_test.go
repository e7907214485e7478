package bsp

import (
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
)

// TestAssembleSupersteps: the processes' profiles travel in their results
// and the report's Supersteps are their group-wise maxima.
func TestAssembleSupersteps(t *testing.T) {
	a := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.25, H: 16}, {Supersteps: 3, Work: 0.5, H: 0}}
	b := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.125, H: 64}, {Supersteps: 3, Work: 0.75, H: 8}}
	results := [][]float64{
		encodeResult(bsp.Stats{Supersteps: 4}, a, []byte("zero\n"), false),
		encodeResult(bsp.Stats{Supersteps: 4}, b, nil, false),
		encodeResult(bsp.Stats{}, nil, nil, true), // beyond bsp_begin's count
	}
	res, err := App{}.Assemble(gridapp.Values{}, gridapp.Task{}, results)
	if err != nil {
		t.Fatal(err)
	}
	want := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.25, H: 64}, {Supersteps: 3, Work: 0.75, H: 8}}
	if len(res.Supersteps) != 2 || res.Supersteps[0] != want[0] || res.Supersteps[1] != want[1] {
		t.Fatalf("supersteps %+v, want %+v", res.Supersteps, want)
	}
	if got := decodeOutput(results[0]); got != "zero\n" {
		t.Errorf("output %q after the profile", got)
	}
}
