package sparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

var matrices = []string{"testdata/laplace2d-12.mtx", "testdata/convection-irregular.mtx", "testdata/tridiag-nondominant.mtx"}

// abs returns the absolute path of a file of the package (the matrix
// parameter must be absolute).
func abs(t testing.TB, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func values(t testing.TB, params map[string]string) gridapp.Values {
	t.Helper()
	v, err := gridapp.Parse(App{}.Params(), params)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func nodes(n, cores int) []gridapp.Node {
	out := make([]gridapp.Node, n)
	for i := range out {
		out[i] = gridapp.Node{Name: fmt.Sprintf("node-%d", i+1), Cores: cores}
	}
	return out
}

// TestAppMatchesSerial: the row blocks, with 1 or 2 cores each, give the
// serial reference of the same method and blocks bit for bit
// (gridapp.RunLocal: synchronous semantics), for every matrix of testdata.
func TestAppMatchesSerial(t *testing.T) {
	app, err := gridapp.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range matrices {
		for _, method := range []Method{Jacobi, GaussSeidel} {
			for _, c := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {4, 1}, {4, 2}, {3, 2}} {
				name := fmt.Sprintf("%s/%s/%d×%d", strings.TrimPrefix(file, "testdata/"), method, c[0], c[1])
				t.Run(name, func(t *testing.T) {
					v := values(t, map[string]string{"matrix": abs(t, file), "method": string(method), "eps": "1e-9"})
					want, iters, sigma, err := SerialFor(v, c[0])
					if err != nil {
						t.Fatal(err)
					}
					if !(sigma < 1e-9) {
						t.Fatalf("serial σ %g after %d sweeps", sigma, iters)
					}
					run, err := gridapp.RunLocal(app, v, nodes(c[0], c[1]))
					if err != nil {
						t.Fatal(err)
					}
					if !run.Converged || run.Iterations != iters {
						t.Fatalf("%d iterations (converged %v), serial %d", run.Iterations, run.Converged, iters)
					}
					for i := range want {
						if run.Result.Solution[i] != want[i] {
							t.Fatalf("x[%d] = %v, serial %v", i, run.Result.Solution[i], want[i])
						}
					}
					if !run.Result.OK {
						t.Fatalf("result not OK: residual %g", run.Result.Residual)
					}
				})
			}
		}
	}
}

// TestPartition: neighbours come from the sparsity pattern, both ways, and
// each side's outgoing entries are the other's halo.
func TestPartition(t *testing.T) {
	a := readFile(t, "testdata/convection-irregular.mtx")
	pt, err := Partitioned(a, 4)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pt.Blocks) != "[[0,25) [25,50) [50,75) [75,100)]" {
		t.Fatalf("blocks %v", pt.Blocks)
	}
	if err := gridapp.CheckGraph(func() []gridapp.PartSpec {
		var ps []gridapp.PartSpec
		for _, nb := range pt.Neighbours {
			ps = append(ps, gridapp.PartSpec{Neighbours: nb})
		}
		return ps
	}()); err != nil {
		t.Fatal(err)
	}
	// The long-range couplings make a graph that is no chain, with one-way
	// needs: some pair exchanges entries in one direction only.
	chain, oneWay := true, false
	for p, nbs := range pt.Neighbours {
		for _, q := range nbs {
			chain = chain && (q == p-1 || q == p+1)
			oneWay = oneWay || len(RowsOf(a, pt.Blocks[p].Lo, pt.Blocks[p].Hi).needs(pt.Blocks[q])) == 0
		}
	}
	if chain || !oneWay {
		t.Fatalf("neighbours %v: chain %v, a one-way pair %v", pt.Neighbours, chain, oneWay)
	}
	b := a.MulOnes()
	parts := make([]*Part, 4)
	for p := range parts {
		if parts[p], err = NewPart(a, b, Jacobi, pt, p, 1); err != nil {
			t.Fatal(err)
		}
		defer parts[p].Close()
	}
	for p, nbs := range pt.Neighbours {
		for i, q := range nbs {
			j := indexOf(pt.Neighbours[q], p)
			if len(parts[p].Halo(i)) != len(parts[q].Outgoing(j)) {
				t.Errorf("block %d's halo from %d holds %d, %d sends %d", p, q, len(parts[p].Halo(i)), q, len(parts[q].Outgoing(j)))
			}
		}
	}
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestCheckScheme: asynchronous iterations are refused, with the reason, on
// a matrix that is not diagonally dominant, unless forced; synchronous ones
// and dominant matrices pass.
func TestCheckScheme(t *testing.T) {
	app := App{}
	for _, c := range []struct {
		file   string
		async  bool
		force  bool
		refuse bool
	}{
		{"testdata/tridiag-nondominant.mtx", true, false, true},
		{"testdata/tridiag-nondominant.mtx", true, true, false},
		{"testdata/tridiag-nondominant.mtx", false, false, false},
		{"testdata/laplace2d-12.mtx", true, false, false},
		{"testdata/convection-irregular.mtx", true, false, false},
	} {
		v := values(t, map[string]string{"matrix": abs(t, c.file), "force": fmt.Sprint(c.force)})
		err := app.CheckScheme(v, gridapp.Task{}, c.async)
		if (err != nil) != c.refuse {
			t.Errorf("%s async %v force %v: %v", c.file, c.async, c.force, err)
		}
		if err != nil && !strings.Contains(err.Error(), "not diagonally dominant (row 2's off-diagonal sum is 1.04 times its diagonal)") {
			t.Errorf("reason: %v", err)
		}
	}
}

// TestDefineErrors: a missing or malformed file and a zero diagonal are
// refused with the file named.
func TestDefineErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := writeString(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ file, want string }{
		{"", "set matrix=PATH"},
		{"testdata/laplace2d-12.mtx", "is a relative path: give an absolute one"},
		{dir + "/missing.mtx", "no such file"},
		{write("bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n"), "bad.mtx:3: entry"},
		{write("zero.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 1 1\n"), "zero.mtx: sparse: row 2 has no nonzero diagonal"},
	} {
		_, err := App{}.Define(values(t, map[string]string{"matrix": c.file}), nodes(2, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.file, err, c.want)
		}
	}
	_, err := App{}.Define(values(t, map[string]string{"matrix": abs(t, "testdata/tridiag-nondominant.mtx")}), nodes(9, 1))
	if err == nil {
		t.Error("8 rows over 9 nodes accepted")
	}
}

func BenchmarkPartSweep(b *testing.B) {
	a := Laplacian2D(256)
	rhs := a.MulOnes()
	pt, _ := Partitioned(a, 1)
	q, err := NewPart(a, rhs, Jacobi, pt, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	b.SetBytes(int64(12 * len(a.Col)))
	for b.Loop() {
		q.Sweep()
	}
}

func BenchmarkSerialSweep(b *testing.B) {
	a := Laplacian2D(256)
	rhs := a.MulOnes()
	x := make([]float64, a.N)
	blocks := []gridapp.Range{{Lo: 0, Hi: a.N}}
	b.SetBytes(int64(12 * len(a.Col)))
	for b.Loop() {
		SerialSweep(a, rhs, Jacobi, blocks, x)
	}
}

func writeString(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
