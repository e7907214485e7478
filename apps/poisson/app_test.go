package poisson

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
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
			b, _ := ParseBlocks(c.blocks)
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

func TestBlocks(t *testing.T) {
	for nodes, want := range map[int]Blocks{1: {1, 1, 1}, 2: {2, 1, 1}, 4: {2, 2, 1}, 8: {2, 2, 2}, 6: {3, 2, 1}, 7: {7, 1, 1}} {
		if got := AutoBlocks(nodes); got != want {
			t.Errorf("AutoBlocks(%d) = %v, want %v", nodes, got, want)
		}
	}
	b := Blocks{2, 2, 2}
	ranks, dirs := b.Neighbours(0)
	if fmt.Sprint(ranks, dirs) != "[4 2 1] [1 3 5]" {
		t.Errorf("neighbours of block 0 of 2x2x2: %v %v", ranks, dirs)
	}
	for _, bad := range []string{"2x2", "0x1x1", "ax1x1"} {
		if _, err := ParseBlocks(bad); err == nil {
			t.Errorf("ParseBlocks(%q) accepted", bad)
		}
	}
	app := App{}
	v, _ := gridapp.Parse(app.Params(), map[string]string{"n": "2", "blocks": "3x1x1"})
	if _, err := app.Define(v, nodes(3, 1)); err == nil {
		t.Error("3 blocks along an axis of 2 points accepted")
	}
	v, _ = gridapp.Parse(app.Params(), map[string]string{"blocks": "2x2x1"})
	if _, err := app.Define(v, nodes(3, 1)); err == nil {
		t.Error("2x2x1 blocks on 3 nodes accepted")
	}
}
