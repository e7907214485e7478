package structured

import (
	"bytes"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// TestGridShape: a toolkit application is gridapp.Gridded (so --out works
// for it with no code of its own): a 2-D grid's shape, origin and spacing,
// the solution RunLocal assembles has as many values and writes as VTI;
// a Series puts its steps first.
func TestGridShape(t *testing.T) {
	a := wideApp(2, 1)
	var gridded gridapp.Application = a
	g, ok := gridded.(gridapp.Gridded)
	if !ok {
		t.Fatal("a toolkit App is not gridapp.Gridded")
	}
	v, err := gridapp.Parse(a.Params(), map[string]string{"sweeps": "3"})
	if err != nil {
		t.Fatal(err)
	}
	grid := g.GridShape(v)
	if want := (gridapp.Grid{Shape: [3]int{9, 8, 1}, Spacing: [3]float64{1, 1, 1}}); grid != want {
		t.Errorf("grid %+v, want %+v", grid, want)
	}
	run, err := gridapp.RunLocal(a, v, make([]gridapp.Node, 4))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Result.Solution) != grid.Points() {
		t.Fatalf("%d values for a grid of %d points", len(run.Result.Solution), grid.Points())
	}
	var b bytes.Buffer
	if err := jobs.WriteVTI(&b, grid, run.Result.Solution); err != nil {
		t.Errorf("VTI: %v", err)
	}
	setup := a.Setup
	a.Setup = func(v gridapp.Values) (Setup, error) {
		s, err := setup(v)
		s.Grid.Origin, s.Grid.Spacing = []float64{0.5, 0.25}, []float64{0.1, 0}
		s.Series, s.Steps = true, 3
		return s, err
	}
	want := gridapp.Grid{Shape: [3]int{3, 9, 8}, Origin: [3]float64{0, 0.5, 0.25}, Spacing: [3]float64{1, 0.1, 1}}
	if got := g.GridShape(v); got != want {
		t.Errorf("series: %+v, want %+v", got, want)
	}
}
