package poisson

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

// TestAppMatchesSerial: the blocks, with 1 or 2 cores each, give the serial
// reference's values bit for bit (gridapp.RunLocal: synchronous semantics).
func TestAppMatchesSerial(t *testing.T) {
	app, err := gridapp.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		blocks string
		cores  int
	}{{"1x1x1", 1}, {"2x1x1", 1}, {"2x1x1", 2}, {"2x2x1", 1}, {"2x2x1", 2}, {"1x2x2", 2}, {"2x2x2", 1}, {"3x1x2", 2}} {
		t.Run(fmt.Sprintf("%s/a=%d", c.blocks, c.cores), func(t *testing.T) {
			v, err := gridapp.Parse(app.Params(), map[string]string{"n": "11", "eps": "1e-6", "blocks": c.blocks})
			if err != nil {
				t.Fatal(err)
			}
			want, iters, _, _ := app.(gridapp.SerialReference).Serial(v)
			b, _ := structured.ParseBlocks(c.blocks, 3)
			run, err := gridapp.RunLocal(app, v, nodes(b.Count(), c.cores))
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
			if !run.Result.OK {
				t.Fatalf("result not OK: residual %g", run.Result.Residual)
			}
		})
	}
}

// TestDefine: blocks the grid cannot hold and blocks that do not match
// the nodes are refused.
func TestDefine(t *testing.T) {
	app, _ := gridapp.Lookup(Name)
	for _, c := range []struct {
		params map[string]string
		nodes  int
	}{
		{map[string]string{"n": "2", "blocks": "3x1x1"}, 3},
		{map[string]string{"blocks": "2x2x1"}, 3},
		{map[string]string{"blocks": "2x2"}, 4},
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

// TestPinnedOnNodes: the pinned figures of DESIGN.md (n = 32, ε = 1e-8:
// 1975 iterations, sum 165.89674402239899) on 1, 2, 4 and 8 nodes (2×2×2
// blocks), synchronous semantics.
func TestPinnedOnNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the pinned runs take a few seconds")
	}
	app, _ := gridapp.Lookup(Name)
	for _, c := range []struct {
		blocks string
		nodes  int
	}{{"1x1x1", 1}, {"2x1x1", 2}, {"2x2x1", 4}, {"2x2x2", 8}} {
		t.Run(c.blocks, func(t *testing.T) {
			v, err := gridapp.Parse(app.Params(), map[string]string{"n": "32", "eps": "1e-8", "blocks": c.blocks})
			if err != nil {
				t.Fatal(err)
			}
			run, err := gridapp.RunLocal(app, v, nodes(c.nodes, 1))
			if err != nil {
				t.Fatal(err)
			}
			sum := Sum(ProblemOf(v), run.Result.Solution)
			if run.Iterations != 1975 || sum != 165.89674402239899 {
				t.Fatalf("%d iterations, sum %.17g; want 1975, 165.89674402239899", run.Iterations, sum)
			}
		})
	}
}
