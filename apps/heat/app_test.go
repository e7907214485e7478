package heat

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/structured"
)

func nodes(b, cores int) []gridapp.Node {
	out := make([]gridapp.Node, b)
	for i := range out {
		out[i] = gridapp.Node{Name: fmt.Sprintf("node-%d", i+1), Cores: cores}
	}
	return out
}

// TestAppMatchesSerial: the tiles, with 1 or 2 cores each, give the serial
// reference's series bit for bit over 3 time steps (gridapp.RunLocal:
// synchronous semantics, advancing every part when the global test passes).
func TestAppMatchesSerial(t *testing.T) {
	app, err := gridapp.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		blocks string
		cores  int
	}{{"1x1", 1}, {"1x1", 2}, {"2x1", 1}, {"2x1", 2}, {"1x2", 2}, {"2x2", 1}, {"2x2", 2}, {"3x2", 1}} {
		t.Run(fmt.Sprintf("%s/a=%d", c.blocks, c.cores), func(t *testing.T) {
			v, err := gridapp.Parse(app.Params(), map[string]string{"n": "11", "steps": "3", "dt": "2e-3", "eps": "1e-9", "blocks": c.blocks})
			if err != nil {
				t.Fatal(err)
			}
			want, iters, _, err := app.(gridapp.SerialReference).Serial(v)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := structured.ParseBlocks(c.blocks, 2)
			run, err := gridapp.RunLocal(app, v, nodes(b.Count(), c.cores))
			if err != nil {
				t.Fatal(err)
			}
			if !run.Converged || run.Iterations != iters {
				t.Fatalf("%d iterations (converged %v), serial %d", run.Iterations, run.Converged, iters)
			}
			if len(run.Result.Solution) != len(want) {
				t.Fatalf("%d values, serial %d", len(run.Result.Solution), len(want))
			}
			for i := range want {
				if run.Result.Solution[i] != want[i] {
					t.Fatalf("value %d (step %d): %v, serial %v", i, i/121+1, run.Result.Solution[i], want[i])
				}
			}
			if !run.Result.OK {
				t.Fatalf("result not OK: residual %g", run.Result.Residual)
			}
		})
	}
}

func TestDefine(t *testing.T) {
	app, _ := gridapp.Lookup(Name)
	for _, c := range []struct {
		params map[string]string
		nodes  int
	}{
		{map[string]string{"n": "2", "blocks": "3x1"}, 3},
		{map[string]string{"blocks": "2x2"}, 3},
		{map[string]string{"blocks": "2x2x1"}, 4},
		{map[string]string{"n": "4096", "steps": "100"}, 1},
	} {
		v, err := gridapp.Parse(app.Params(), c.params)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Define(v, nodes(c.nodes, 1)); err == nil {
			t.Errorf("%v on %d nodes accepted", c.params, c.nodes)
		}
	}
}
