package sparse

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Name is the name the sparse application registers under.
const Name = "sparse"

func init() { gridapp.Register(Name, App{}) }

// App is A x = b for a sparse matrix read from a Matrix Market file, b = A·𝟙
// (so x = 𝟙), as a gridapp.Application: contiguous blocks of rows, one per
// node, neighbours from the sparsity pattern, block Jacobi.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "A x = b, A from a Matrix Market file, block Jacobi over row blocks (neighbours from the sparsity pattern)"}
}

// Params declares matrix, method, eps, max_iter and force.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.FileParam("matrix", "a Matrix Market file (coordinate real/integer/pattern, general/symmetric); the submitter makes a relative path absolute, and the file must exist at that path on every node's host"),
		gridapp.StringParam("method", string(Jacobi), []string{string(Jacobi), string(GaussSeidel)}, "iteration inside a block of rows"),
		gridapp.FloatParam("eps", 1e-10, 0, math.MaxFloat64, "tolerance on σ = max|x'−x|").Above(),
		gridapp.IntParam("max_iter", 100000, 0, math.MaxInt32, "iteration limit of every node (0: none)"),
		gridapp.BoolParam("force", false, "run asynchronous iterations even when the matrix is not diagonally dominant"),
	}
}

// system is a loaded problem.
type system struct {
	a *Matrix
	b []float64
}

// cache keeps the last matrix read, so that Define, NewPart and Assemble in
// one process read the file once.
var cache struct {
	sync.Mutex
	key string
	sys system
}

// Load reads the matrix of the values (or the cached copy of an unchanged
// file) and checks its diagonal.
func Load(v gridapp.Values) (*Matrix, []float64, error) {
	path := v.String("matrix")
	if path == "" {
		return nil, nil, fmt.Errorf("sparse: no matrix: set matrix=PATH (a Matrix Market file)")
	}
	if !filepath.IsAbs(path) {
		return nil, nil, fmt.Errorf("sparse: matrix %q is a relative path: give an absolute one (every node opens the file, each in its own working directory)", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("sparse: matrix: %w (the file must exist at this path on every node's host)", err)
	}
	key := fmt.Sprintf("%s %d %d", path, st.Size(), st.ModTime().UnixNano())
	cache.Lock()
	defer cache.Unlock()
	if cache.key == key {
		return cache.sys.a, cache.sys.b, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("sparse: matrix: %w", err)
	}
	defer f.Close()
	a, err := Read(f, path)
	if err != nil {
		return nil, nil, err
	}
	if err := a.CheckDiagonal(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	cache.key, cache.sys = key, system{a, a.MulOnes()}
	return a, cache.sys.b, nil
}

// Define splits the rows into one block per node.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	a, _, err := Load(v)
	if err != nil {
		return gridapp.Task{}, err
	}
	pt, err := Partitioned(a, len(nodes))
	if err != nil {
		return gridapp.Task{}, err
	}
	t := gridapp.Task{Eps: v.Float("eps"), MaxIter: v.Int("max_iter"), Parts: make([]gridapp.PartSpec, len(nodes))}
	for p, bl := range pt.Blocks {
		spec, err := json.Marshal(pt.spec(a, p))
		if err != nil {
			return gridapp.Task{}, err
		}
		t.Parts[p] = gridapp.PartSpec{Neighbours: pt.Neighbours[p], Spec: spec, Size: bl.Len()}
	}
	return t, nil
}

// NewPart builds the block of rows of the sub-task from its spec and its
// own rows of the matrix file (ReadRows): a worker never holds the whole
// matrix.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s blockSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, fmt.Errorf("sparse: sub-task %q: %w", sub.Spec, err)
	}
	if len(s.Ranges) != len(sub.Neighbours) {
		return nil, fmt.Errorf("sparse: block %d: %d neighbour ranges for %d neighbours", s.Block, len(s.Ranges), len(sub.Neighbours))
	}
	rows, err := loadRows(v, s.Lo, s.Hi)
	if err != nil {
		return nil, err
	}
	diag, err := rows.diag()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.String("matrix"), err)
	}
	return newPart(rows, rows.mulOnes(), diag, Method(v.String("method")), s, sub.Cores)
}

// loadRows reads rows [lo, hi) of the values' matrix file.
func loadRows(v gridapp.Values, lo, hi int) (*Rows, error) {
	path := v.String("matrix")
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("sparse: matrix %q is a relative path: give an absolute one (every node opens the file, each in its own working directory)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sparse: matrix: %w (the file must exist at this path on every node's host)", err)
	}
	defer f.Close()
	return ReadRows(f, path, lo, hi)
}

// CheckScheme refuses asynchronous iterations on a matrix that is neither
// strictly nor weakly irreducibly diagonally dominant (they are not known
// to converge there), unless force is set.
func (App) CheckScheme(v gridapp.Values, t gridapp.Task, async bool) error {
	if !async || v.Bool("force") {
		return nil
	}
	a, _, err := Load(v)
	if err != nil {
		return err
	}
	if d, why := a.Dominance(); d == NotDominant {
		return fmt.Errorf("sparse: asynchronous iterations are not known to converge for %s, which is not diagonally dominant (%s): run it synchronously, or set force=true to try anyway",
			v.String("matrix"), why)
	}
	return nil
}

// Assemble gathers the blocks into x and measures it: the true residual
// (one more Jacobi sweep's σ), ‖b − A x‖∞, the error against x = 𝟙.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	a, b, err := Load(v)
	if err != nil {
		return gridapp.Result{}, err
	}
	var x []float64
	for _, r := range results {
		x = append(x, r...)
	}
	if len(x) != a.N {
		return gridapp.Result{}, fmt.Errorf("sparse: blocks hold %d values for %d rows", len(x), a.N)
	}
	res := Residual(a, b, x)
	var e, sum float64
	for _, xi := range x {
		e, sum = max(e, math.Abs(xi-1)), sum+xi
	}
	return gridapp.Result{Solution: x, Residual: res, OK: res < v.Float("eps"), Figures: []gridapp.Figure{
		{Name: "‖b − A x‖∞", Value: ResidualNorm(a, b, x)},
		{Name: "max error against x = 1", Value: e},
		{Name: "sum of x", Value: sum, Text: fmt.Sprintf("%.17g", sum)},
	}}, nil
}

// Serial is the plain serial reference: SerialSolve of the values' method
// on one block of all rows. For GaussSeidel the blocks of a distributed run
// matter: compare it with SerialFor.
func (App) Serial(v gridapp.Values) ([]float64, int, float64, error) {
	return SerialFor(v, 1)
}

// SerialFor is the serial reference of the method with the rows in the
// blocks of a run on nodes nodes.
func SerialFor(v gridapp.Values, nodes int) ([]float64, int, float64, error) {
	a, b, err := Load(v)
	if err != nil {
		return nil, 0, math.NaN(), err
	}
	pt, err := Partitioned(a, nodes)
	if err != nil {
		return nil, 0, math.NaN(), err
	}
	return SerialSolve(a, b, Method(v.String("method")), pt.Blocks, v.Float("eps"), v.Int("max_iter"))
}
