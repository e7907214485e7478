package solve

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/sparse"
)

const sparseEps = 1e-10

// runSparse runs c on the matrix file and checks that the true residual of
// the assembled x is below tol.
func runSparse(t *testing.T, c graphRun, file string, tol float64) ([]SolveResult, []float64) {
	t.Helper()
	c.app = sparse.Name
	params := map[string]string{"matrix": sparseTestdata(t, file), "eps": fmt.Sprint(sparseEps)}
	for k, v := range c.params {
		params[k] = v
	}
	c.params = params
	res, task, v := c.run(t)
	results := make([][]float64, len(res))
	for r := range res {
		results[r] = res[r].Values
	}
	out, err := sparse.App{}.Assemble(v, task, results)
	if err != nil {
		t.Fatal(err)
	}
	if !(out.Residual < tol) {
		t.Fatalf("true residual %g ≥ %g", out.Residual, tol)
	}
	return res, out.Solution
}

// TestSparseBlocks runs A x = b in row blocks whose neighbours come from the
// sparsity pattern (the irregular matrix's graph is no chain and some pairs
// exchange entries one way only): synchronous runs on 2 and 4 nodes equal
// the serial reference of the same method bit for bit after as many sweeps;
// asynchronous and hybrid runs end with a true residual below ε. A forced
// asynchronous run on a matrix that is not diagonally dominant converges
// here, but its residual is not bounded by ε (a halo within ε of its final
// value moves a row by up to 1.04·ε): it is only checked below 100·ε.
func TestSparseBlocks(t *testing.T) {
	cross := func(a, b int) bool { return a/2 != b/2 }
	type sparseCase struct {
		graphRun
		file string
	}
	cases := map[string]sparseCase{
		"sync tokens 2 jacobi":         {graphRun{ranks: 2, cores: 2, scheme: Synchronous}, "laplace2d-12.mtx"},
		"sync tokens 4 jacobi":         {graphRun{ranks: 4, cores: 1, scheme: Synchronous}, "convection-irregular.mtx"},
		"sync tokens 4 gauss-seidel":   {graphRun{ranks: 4, cores: 2, scheme: Synchronous, params: map[string]string{"method": "gauss-seidel"}}, "convection-irregular.mtx"},
		"sync tokens 2 nondominant":    {graphRun{ranks: 2, cores: 1, scheme: Synchronous}, "tridiag-nondominant.mtx"},
		"sync switch 4":                {graphRun{ranks: 4, cores: 1, scheme: Synchronous, detector: DetectSwitch}, "laplace2d-12.mtx"},
		"async activity 4":             {graphRun{ranks: 4, cores: 1, scheme: Asynchronous}, "convection-irregular.mtx"},
		"async activity 4 gs":          {graphRun{ranks: 4, cores: 1, scheme: Asynchronous, params: map[string]string{"method": "gauss-seidel"}}, "laplace2d-12.mtx"},
		"async switch 4":               {graphRun{ranks: 4, cores: 2, scheme: Asynchronous, detector: DetectSwitch}, "convection-irregular.mtx"},
		"hybrid activity 4":            {graphRun{ranks: 4, cores: 1, scheme: Hybrid, asyncLink: cross}, "convection-irregular.mtx"},
		"hybrid switch 4":              {graphRun{ranks: 4, cores: 1, scheme: Hybrid, detector: DetectSwitch, asyncLink: cross}, "laplace2d-12.mtx"},
		"async activity 2 nondominant": {graphRun{ranks: 2, cores: 1, scheme: Asynchronous, params: map[string]string{"force": "true"}}, "tridiag-nondominant.mtx"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tol := sparseEps
			if c.params["force"] == "true" {
				tol *= 100
			}
			res, x := runSparse(t, c.graphRun, c.file, tol)
			if c.scheme != Synchronous {
				return
			}
			k := res[0].Iterations
			for r := range res {
				if res[r].Iterations != k || !res[r].Converged {
					t.Fatalf("rank %d: %d iterations (converged %v), rank 0 %d", r, res[r].Iterations, res[r].Converged, k)
				}
			}
			method := sparse.Jacobi
			if strings.Contains(name, "gauss-seidel") {
				method = sparse.GaussSeidel
			}
			a := readMatrix(t, c.file)
			pt, err := sparse.Partitioned(a, c.ranks)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _, err := sparse.SerialSolve(a, a.MulOnes(), method, pt.Blocks, 0, k)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if x[i] != want[i] {
					t.Fatalf("after %d sweeps x[%d] = %v, serial %v", k, i, x[i], want[i])
				}
			}
		})
	}
}

func readMatrix(t *testing.T, file string) *sparse.Matrix {
	t.Helper()
	v := map[string]string{"matrix": sparseTestdata(t, file)}
	vals, err := gridapp.Parse(sparse.App{}.Params(), v)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := sparse.Load(vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSparseDelayedLink repeats the asynchronous and hybrid runs with a slow
// link: every run ends with a true residual below ε.
func TestSparseDelayedLink(t *testing.T) {
	cross := func(a, b int) bool { return a/2 != b/2 }
	cases := map[string]graphRun{
		"async activity":  {ranks: 4, scheme: Asynchronous},
		"async switch":    {ranks: 4, scheme: Asynchronous, detector: DetectSwitch},
		"hybrid activity": {ranks: 4, scheme: Hybrid, asyncLink: cross},
		"hybrid switch":   {ranks: 4, scheme: Hybrid, detector: DetectSwitch, asyncLink: cross},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.hooks = delayLink(1, 2, 200*time.Microsecond) // 1–2 crosses the clusters
			for i := range longRepeats() {
				c.cores = 1 + i%2
				runSparse(t, c, "convection-irregular.mtx", sparseEps)
			}
		})
	}
}

// sparseTestdata returns the absolute path of a matrix of apps/sparse's
// testdata.
func sparseTestdata(t *testing.T, file string) string {
	t.Helper()
	p, err := filepath.Abs("../../apps/sparse/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
