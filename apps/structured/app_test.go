package structured

import (
	"fmt"
	"math"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// wideApp is a test application on a grid of any dimension with a star
// stencil of reach g (every neighbour at distance 1…g along each axis),
// non-zero boundary and initial values: what the toolkit must get right
// beyond the 5- and 7-point kernels.
func wideApp(dims, ghost int) *App {
	n := []int{9, 8, 7}[:dims]
	grid := Grid{N: n, Ghost: ghost,
		Boundary: func(i, j, k int) float64 { return float64(i) + 0.5*float64(j) - 0.25*float64(k) },
		Initial:  func(i, j, k int) float64 { return math.Sin(float64(i*7 + j*3 + k)) },
	}
	return &App{
		Summary:    "test",
		Parameters: []gridapp.Param{gridapp.IntParam("sweeps", 5, 1, 100, "sweeps")},
		Setup: func(v gridapp.Values) (Setup, error) {
			return Setup{Grid: grid, Eps: 1e-300, MaxIter: v.Int("sweeps")}, nil
		},
		Local: func(v gridapp.Values, b *Block) (Local, error) { return wideLocal{}, nil },
		Measure: func(v gridapp.Values, s Solution) (gridapp.Result, error) {
			return gridapp.Result{Solution: s.Levels[0], OK: true}, nil
		},
	}
}

type wideLocal struct{}

func (wideLocal) Sweep(b *Block, box Box) float64 {
	var sigma float64
	st := [3]int{b.Layout.SX, b.Layout.SY, b.Layout.SZ}
	box.Each(func(i, j, k int) {
		c := b.Layout.At(i, j, k)
		s := 0.0
		for a := range b.Grid.Dims() {
			for d := 1; d <= b.Grid.Ghost; d++ {
				s += (b.U[c-d*st[a]] + b.U[c+d*st[a]]) / float64(d+1)
			}
		}
		v := 0.5*b.U[c] + 0.1*s
		sigma = max(sigma, math.Abs(v-b.U[c]))
		b.Next[c] = v
	})
	return sigma
}

// wideSerial is wideApp's serial loop over the whole grid with its
// boundary layers.
func wideSerial(a *App, v gridapp.Values) []float64 {
	s, _ := a.Setup(v)
	b, err := newBlock(s.Grid, s.Grid.Box(), nil, 1)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	b.local = wideLocal{}
	for range s.MaxIter {
		b.Sweep()
	}
	return b.appendOwned(nil)
}

// TestBlocksMatchSerial: on 1-, 2- and 3-D grids with ghost widths 1 and 2,
// boundary and initial values, every decomposition (1 or 2 cores a block)
// gives the serial loop's values bit for bit after the same sweeps.
func TestBlocksMatchSerial(t *testing.T) {
	for _, c := range []struct {
		dims, ghost int
		blocks      []string
	}{
		{1, 1, []string{"1", "3", "4"}}, {1, 2, []string{"2", "4"}},
		{2, 1, []string{"1x1", "2x2", "3x1", "1x4"}}, {2, 2, []string{"2x2", "4x1"}},
		{3, 1, []string{"1x1x1", "2x2x2", "3x1x2"}}, {3, 2, []string{"2x2x2", "1x1x3"}},
	} {
		app := wideApp(c.dims, c.ghost)
		for _, bl := range c.blocks {
			for _, cores := range []int{1, 2} {
				t.Run(fmt.Sprintf("%dD/g=%d/%s/a=%d", c.dims, c.ghost, bl, cores), func(t *testing.T) {
					v, err := gridapp.Parse(app.Params(), map[string]string{"sweeps": "6", "blocks": bl})
					if err != nil {
						t.Fatal(err)
					}
					want := wideSerial(app, v)
					b, _ := ParseBlocks(bl, c.dims)
					nodes := make([]gridapp.Node, b.Count())
					for i := range nodes {
						nodes[i].Cores = cores
					}
					run, err := gridapp.RunLocal(app, v, nodes)
					if err != nil {
						t.Fatal(err)
					}
					if run.Iterations != 6 {
						t.Fatalf("%d sweeps, want 6", run.Iterations)
					}
					for i := range want {
						if run.Result.Solution[i] != want[i] {
							t.Fatalf("value %d: %v, serial %v", i, run.Result.Solution[i], want[i])
						}
					}
				})
			}
		}
	}
}

func TestDecomposition(t *testing.T) {
	for nodes, want := range map[int]Blocks{1: {1, 1, 1}, 2: {2, 1, 1}, 4: {2, 2, 1}, 8: {2, 2, 2}, 6: {3, 2, 1}, 7: {7, 1, 1}} {
		if got := AutoBlocks(nodes, 3); got != want {
			t.Errorf("AutoBlocks(%d, 3) = %v, want %v", nodes, got, want)
		}
	}
	for nodes, want := range map[int]Blocks{1: {1, 1, 1}, 2: {2, 1, 1}, 4: {2, 2, 1}, 6: {3, 2, 1}, 7: {7, 1, 1}, 9: {3, 3, 1}} {
		if got := AutoBlocks(nodes, 2); got != want {
			t.Errorf("AutoBlocks(%d, 2) = %v, want %v", nodes, got, want)
		}
	}
	if ranks, dirs := (Blocks{2, 2, 2}).Neighbours(0); fmt.Sprint(ranks, dirs) != "[4 2 1] [1 3 5]" {
		t.Errorf("neighbours of block 0 of 2x2x2: %v %v", ranks, dirs)
	}
	if ranks, dirs := (Blocks{2, 2, 1}).Neighbours(0); fmt.Sprint(ranks, dirs) != "[2 1] [1 3]" {
		t.Errorf("neighbours of tile 0 of 2x2: %v %v", ranks, dirs)
	}
	for _, bad := range []struct {
		s    string
		dims int
	}{{"2x2", 3}, {"0x1x1", 3}, {"ax1x1", 3}, {"2x2x1", 2}, {"2x", 2}} {
		if _, err := ParseBlocks(bad.s, bad.dims); err == nil {
			t.Errorf("ParseBlocks(%q, %d) accepted", bad.s, bad.dims)
		}
	}
	g := Grid{N: []int{8, 3}, Ghost: 2}
	if _, err := (Blocks{1, 2, 1}).Boxes(g); err == nil {
		t.Error("blocks thinner than the ghost width accepted")
	}
	for _, bad := range []Grid{{N: nil, Ghost: 1}, {N: []int{1, 2, 3, 4}, Ghost: 1}, {N: []int{4, 0}, Ghost: 1}, {N: []int{4}, Ghost: 0}} {
		if bad.Validate() == nil {
			t.Errorf("grid %+v accepted", bad)
		}
	}
}

// TestHaloNoAllocation: packing and unpacking the faces allocate nothing
// per iteration.
func TestHaloNoAllocation(t *testing.T) {
	g := Grid{N: []int{12, 10, 9}, Ghost: 2}
	b, err := newBlock(g, Box{X: Range{Lo: 2, Hi: 8}, Y: Range{Lo: 2, Hi: 6}, Z: Range{Lo: 3, Hi: 7}}, []int{0, 1, 2, 3, 4, 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	allocs := testing.AllocsPerRun(10, func() {
		for i := range 6 {
			b.Outgoing(i)
			b.Received(i)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per exchange", allocs)
	}
}

// TestExactSweeps: Setup.Sweeps (gridapp.Task.Sweeps) gives exactly that
// many sweeps whatever the threshold: a threshold of 1 would stop at once.
func TestExactSweeps(t *testing.T) {
	app := wideApp(2, 1)
	setup := app.Setup
	app.Setup = func(v gridapp.Values) (Setup, error) {
		s, err := setup(v)
		s.Eps, s.MaxIter, s.Sweeps = 1, 0, v.Int("sweeps")
		return s, err
	}
	v, err := gridapp.Parse(app.Params(), map[string]string{"sweeps": "7", "blocks": "2x2"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := gridapp.RunLocal(app, v, make([]gridapp.Node, 4))
	if err != nil {
		t.Fatal(err)
	}
	want := wideSerial(wideApp(2, 1), v)
	for i := range want {
		if run.Result.Solution[i] != want[i] {
			t.Fatalf("value %d: %v, serial after 7 sweeps %v", i, run.Result.Solution[i], want[i])
		}
	}
	if !run.Converged || run.Iterations != 8 {
		t.Errorf("%d iterations (converged %v): want 7 sweeps and the one that reports σ = 0", run.Iterations, run.Converged)
	}
}
