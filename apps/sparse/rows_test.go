package sparse

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestReadRows: a block of rows read alone (ReadRows) is the same block of
// the whole matrix (Read), for a symmetric file (mirrored entries) and a
// general one, and a bad block is an error.
func TestReadRows(t *testing.T) {
	for _, file := range []string{"testdata/laplace2d-12.mtx", "testdata/convection-irregular.mtx"} {
		a := readFile(t, file)
		for _, bl := range [][2]int{{0, 1}, {0, a.N}, {17, 40}, {a.N - 3, a.N}} {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := ReadRows(f, file, bl[0], bl[1])
			f.Close()
			if err != nil {
				t.Fatalf("%s rows %v: %v", file, bl, err)
			}
			want := RowsOf(a, bl[0], bl[1])
			for i := bl[0]; i < bl[1]; i++ {
				gc, gv := rows.Row(i)
				wc, wv := want.Row(i)
				if !slicesEqual(gc, wc) || !floatsEqual(gv, wv) {
					t.Fatalf("%s row %d: %v %v, want %v %v", file, i, gc, gv, wc, wv)
				}
			}
			if len(rows.Col) != len(want.Col) {
				t.Errorf("%s rows %v: %d entries kept, want %d", file, bl, len(rows.Col), len(want.Col))
			}
		}
	}
	if _, err := ReadRows(strings.NewReader("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"), "x.mtx", 1, 3); err == nil {
		t.Error("rows beyond the matrix accepted")
	}
}

// TestNewPartFromSpec: the part a worker builds from its sub-task's spec
// and its own rows of the file (App.NewPart) sweeps bit for bit as the one
// built from the whole matrix, halos and outgoing entries included, on a
// pattern with one-way couplings.
func TestNewPartFromSpec(t *testing.T) {
	path, err := filepath.Abs("testdata/convection-irregular.mtx")
	if err != nil {
		t.Fatal(err)
	}
	v := values(t, map[string]string{"matrix": path})
	nodes := make([]gridapp.Node, 4)
	for i := range nodes {
		nodes[i] = gridapp.Node{Cores: 1}
	}
	task, err := App{}.Define(v, nodes)
	if err != nil {
		t.Fatal(err)
	}
	a := readFile(t, path)
	pt, _ := Partitioned(a, 4)
	b := a.MulOnes()
	for r, ps := range task.Parts {
		got, err := App{}.NewPart(v, gridapp.Subtask{Rank: r, Ranks: 4, Neighbours: ps.Neighbours, Cores: 1, Spec: ps.Spec})
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewPart(a, b, Jacobi, pt, r, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps.Neighbours {
			for k := range got.Halo(i) {
				got.Halo(i)[k], want.Halo(i)[k] = float64(k+1)/7, float64(k+1)/7
			}
		}
		for range 3 {
			if gs, ws := got.Sweep(), want.Sweep(); gs != ws {
				t.Fatalf("part %d: σ %v, want %v", r, gs, ws)
			}
		}
		if !floatsEqual(got.Result(), want.Result()) {
			t.Errorf("part %d: result differs", r)
		}
		for i := range ps.Neighbours {
			if !floatsEqual(got.(*Part).Outgoing(i), want.Outgoing(i)) {
				t.Errorf("part %d: outgoing to neighbour %d differs", r, i)
			}
		}
		got.Close()
		want.Close()
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
