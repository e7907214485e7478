package obstacle_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
)

func nodes(b, cores int) []gridapp.Node {
	out := make([]gridapp.Node, b)
	for i := range out {
		out[i] = gridapp.Node{Name: fmt.Sprintf("node-%d", i+1), Cores: cores}
	}
	return out
}

// TestAppMatchesSerial runs the registered application in one process with
// the synchronous scheme's semantics and compares it with the serial
// reference bit for bit.
func TestAppMatchesSerial(t *testing.T) {
	app, err := gridapp.Lookup(obstacle.Name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "12", "eps": "1e-8"})
	if err != nil {
		t.Fatal(err)
	}
	want, iters, _, _ := app.(gridapp.SerialReference).Serial(v)
	for _, c := range []struct{ b, cores int }{{1, 1}, {2, 1}, {2, 2}, {3, 2}, {5, 1}} {
		t.Run(fmt.Sprintf("b=%d/a=%d", c.b, c.cores), func(t *testing.T) {
			run, err := gridapp.RunLocal(app, v, nodes(c.b, c.cores))
			if err != nil {
				t.Fatal(err)
			}
			if !run.Converged || run.Iterations != iters {
				t.Fatalf("%d iterations (converged %v), serial %d", run.Iterations, run.Converged, iters)
			}
			for i := range want {
				if run.Result.Solution[i] != want[i] {
					t.Fatalf("value %d: %v, serial %v", i, run.Result.Solution[i], want[i])
				}
			}
			if !run.Result.OK || !(run.Result.Residual < 1e-8) {
				t.Fatalf("result not OK: residual %g, figures %v", run.Result.Residual, run.Result.Figures)
			}
		})
	}
}

func TestAppDefineErrors(t *testing.T) {
	app := obstacle.App{}
	v, _ := gridapp.Parse(app.Params(), map[string]string{"n": "4"})
	for name, tc := range map[string]struct {
		nodes []gridapp.Node
		want  string
	}{
		"too many nodes": {nodes(5, 1), "too small to split over 5 nodes"},
		"too many cores": {nodes(2, 8), "node node-1: 8 cores but n = 4"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := app.Define(v, tc.nodes)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	task, err := app.Define(v, nodes(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.NewPart(v, gridapp.Subtask{Rank: 0, Ranks: 2, Neighbours: []int{1, 3}, Cores: 1, Spec: task.Parts[0].Spec})
	if err == nil || !strings.Contains(err.Error(), "neighbour 3 is not an adjacent slab") {
		t.Fatalf("NewPart with a wrong neighbour: %v", err)
	}
}
