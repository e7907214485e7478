package sparse

import (
	"fmt"
	"math"
	"slices"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Method is the iteration inside a block of rows.
type Method string

const (
	// Jacobi: every row from the previous iterate (block Jacobi with Jacobi
	// in the block: plain Jacobi, whatever the blocks).
	Jacobi Method = "jacobi"
	// GaussSeidel: the block's rows in order, each from the block's newest
	// values and the other blocks' previous iterate (block Jacobi with one
	// Gauss-Seidel sweep in the block; it depends on the blocks).
	GaussSeidel Method = "gauss-seidel"
)

// rowUpdate returns row i's new value from x (the diagonal skipped):
//
//	s  = b_i; for each stored j ≠ i, in increasing j: s = s − a_ij·x_j
//	x' = s / a_ii
//
// in exactly this order; at(j) gives x_j.
func rowUpdate(cols []int, vals []float64, i int, b, d float64, at func(j int) float64) float64 {
	s := b
	for k, j := range cols {
		if j != i {
			s -= float64(vals[k] * at(j))
		}
	}
	return s / d
}

// SerialSweep is one iteration of method over the whole system, the
// specification of the distributed sweep: x holds the iterate and is
// updated; blocks (contiguous row ranges covering [0, n)) matter only for
// GaussSeidel. It returns σ = max|x' − x|.
func SerialSweep(a *Matrix, b []float64, method Method, blocks []gridapp.Range, x []float64) float64 {
	old := slices.Clone(x)
	diag := a.Diag()
	var sigma float64
	for _, bl := range blocks {
		at := func(j int) float64 { return old[j] }
		if method == GaussSeidel {
			at = func(j int) float64 {
				if j >= bl.Lo && j < bl.Hi {
					return x[j]
				}
				return old[j]
			}
		}
		for i := bl.Lo; i < bl.Hi; i++ {
			cols, vals := a.Row(i)
			v := rowUpdate(cols, vals, i, b[i], diag[i], at)
			sigma = max(sigma, math.Abs(v-old[i]))
			x[i] = v
		}
	}
	return sigma
}

// SerialSolve iterates SerialSweep from x = 0 until σ < eps or maxIter
// sweeps (0: no limit) and returns x, the sweeps and the last σ.
func SerialSolve(a *Matrix, b []float64, method Method, blocks []gridapp.Range, eps float64, maxIter int) ([]float64, int, float64, error) {
	if err := checkBlocks(a.N, blocks); err != nil {
		return nil, 0, math.NaN(), err
	}
	if err := a.CheckDiagonal(); err != nil {
		return nil, 0, math.NaN(), err
	}
	x := make([]float64, a.N)
	k := 0
	sigma := math.Inf(1)
	for maxIter == 0 || k < maxIter {
		sigma = SerialSweep(a, b, method, blocks, x)
		k++
		if sigma < eps || math.IsNaN(sigma) {
			break
		}
	}
	return x, k, sigma, nil
}

func checkBlocks(n int, blocks []gridapp.Range) error {
	lo := 0
	for _, b := range blocks {
		if b.Lo != lo || b.Hi <= b.Lo {
			return fmt.Errorf("sparse: row blocks %v do not cover 1…%d in order", blocks, n)
		}
		lo = b.Hi
	}
	if lo != n {
		return fmt.Errorf("sparse: row blocks %v do not cover 1…%d in order", blocks, n)
	}
	return nil
}

// Residual returns the true residual of x: the σ of one more Jacobi sweep,
// max_i |b_i − (A x)_i| / |a_ii| up to rounding. NaN if x has the wrong
// length.
func Residual(a *Matrix, b, x []float64) float64 {
	if len(x) != a.N {
		return math.NaN()
	}
	return SerialSweep(a, b, Jacobi, []gridapp.Range{{Lo: 0, Hi: a.N}}, slices.Clone(x))
}

// ResidualNorm returns ‖b − A x‖∞.
func ResidualNorm(a *Matrix, b, x []float64) float64 {
	var r float64
	for i := range a.N {
		cols, vals := a.Row(i)
		s := b[i]
		for k, j := range cols {
			s -= vals[k] * x[j]
		}
		r = max(r, math.Abs(s))
	}
	return r
}
