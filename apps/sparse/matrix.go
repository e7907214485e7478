package sparse

import (
	"fmt"
	"math"
	"sort"
)

// Matrix is a square sparse matrix in compressed sparse row form: row i's
// entries are Col[RowPtr[i]:RowPtr[i+1]] (increasing, no duplicates) with
// values Val[…]. Explicit zeros are kept as stored.
type Matrix struct {
	N      int
	RowPtr []int
	Col    []int
	Val    []float64
}

// Entry is one stored entry (0-based).
type Entry struct {
	I, J int
	V    float64
}

// FromEntries builds the n×n matrix of the entries; a duplicate (i, j) or an
// index outside [0, n) is an error.
func FromEntries(n int, es []Entry) (*Matrix, error) {
	es = append([]Entry(nil), es...)
	sort.Slice(es, func(a, b int) bool {
		if es[a].I != es[b].I {
			return es[a].I < es[b].I
		}
		return es[a].J < es[b].J
	})
	m := &Matrix{N: n, RowPtr: make([]int, n+1), Col: make([]int, len(es)), Val: make([]float64, len(es))}
	for k, e := range es {
		if e.I < 0 || e.I >= n || e.J < 0 || e.J >= n {
			return nil, fmt.Errorf("sparse: entry (%d, %d) outside the %d×%d matrix", e.I+1, e.J+1, n, n)
		}
		if k > 0 && es[k-1].I == e.I && es[k-1].J == e.J {
			return nil, fmt.Errorf("sparse: entry (%d, %d) given twice", e.I+1, e.J+1)
		}
		m.RowPtr[e.I+1]++
		m.Col[k], m.Val[k] = e.J, e.V
	}
	for i := range n {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	return m, nil
}

// Row returns row i's columns and values.
func (m *Matrix) Row(i int) ([]int, []float64) {
	lo, hi := m.RowPtr[i], m.RowPtr[i+1]
	return m.Col[lo:hi], m.Val[lo:hi]
}

// Diag returns the diagonal (0 where none is stored).
func (m *Matrix) Diag() []float64 {
	d := make([]float64, m.N)
	for i := range m.N {
		cols, vals := m.Row(i)
		for k, j := range cols {
			if j == i {
				d[i] = vals[k]
			}
		}
	}
	return d
}

// CheckDiagonal reports the first row whose diagonal is zero or missing:
// Jacobi and Gauss-Seidel divide by it.
func (m *Matrix) CheckDiagonal() error {
	for i, d := range m.Diag() {
		if d == 0 {
			return fmt.Errorf("sparse: row %d has no nonzero diagonal entry (Jacobi divides by it)", i+1)
		}
	}
	return nil
}

// MulOnes returns A·𝟙, the right-hand side whose solution is x = 𝟙.
func (m *Matrix) MulOnes() []float64 {
	b := make([]float64, m.N)
	for i := range m.N {
		_, vals := m.Row(i)
		var s float64
		for _, v := range vals {
			s += v
		}
		b[i] = s
	}
	return b
}

// Dominance is how diagonally dominant a matrix is.
type Dominance int

const (
	// NotDominant: some row's off-diagonal sum exceeds its diagonal, or no
	// row is strictly dominant, or the weakly dominant matrix is reducible.
	NotDominant Dominance = iota
	// WeaklyIrreducible: every row weakly dominant, one strictly, and the
	// matrix irreducible (its graph strongly connected).
	WeaklyIrreducible
	// Strict: every row strictly dominant.
	Strict
)

// Dominance classifies m and, when it is not dominant, says why. Both
// dominant classes make the Jacobi matrix J satisfy ρ(|J|) < 1, under which
// asynchronous iterations converge for any bounded delays (Chazan and
// Miranker; Bertsekas and Tsitsiklis).
func (m *Matrix) Dominance() (Dominance, string) {
	strict, worst, worstRow := true, 0.0, -1
	anyStrict := false
	for i := range m.N {
		cols, vals := m.Row(i)
		var d, off float64
		for k, j := range cols {
			if j == i {
				d = math.Abs(vals[k])
			} else {
				off += math.Abs(vals[k])
			}
		}
		switch {
		case off < d:
			anyStrict = true
		case off == d:
			strict = false
		default:
			strict = false
			if r := off / d; worstRow < 0 || r > worst {
				worst, worstRow = r, i
			}
		}
	}
	switch {
	case worstRow >= 0:
		return NotDominant, fmt.Sprintf("row %d's off-diagonal sum is %.3g times its diagonal", worstRow+1, worst)
	case strict:
		return Strict, ""
	case !anyStrict:
		return NotDominant, "no row is strictly diagonally dominant"
	case !m.irreducible():
		return NotDominant, "weakly diagonally dominant but reducible"
	}
	return WeaklyIrreducible, ""
}

// irreducible reports whether the graph of m (i → j for a_ij ≠ 0) is
// strongly connected: every row reachable from row 0 and row 0 from every
// row.
func (m *Matrix) irreducible() bool {
	fwd := make([][]int, m.N)
	rev := make([][]int, m.N)
	for i := range m.N {
		cols, vals := m.Row(i)
		for k, j := range cols {
			if j != i && vals[k] != 0 {
				fwd[i] = append(fwd[i], j)
				rev[j] = append(rev[j], i)
			}
		}
	}
	return reachesAll(fwd) && reachesAll(rev)
}

func reachesAll(adj [][]int) bool {
	if len(adj) == 0 {
		return true
	}
	seen := make([]bool, len(adj))
	stack := []int{0}
	seen[0] = true
	count := 1
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range adj[i] {
			if !seen[j] {
				seen[j] = true
				count++
				stack = append(stack, j)
			}
		}
	}
	return count == len(adj)
}

// Laplacian2D returns the 5-point Laplacian of a k×k grid (diagonal 4,
// neighbours −1, Dirichlet boundary), rows in x-major order: weakly and
// irreducibly diagonally dominant.
func Laplacian2D(k int) *Matrix {
	var es []Entry
	for x := range k {
		for y := range k {
			i := x*k + y
			es = append(es, Entry{i, i, 4})
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				if px, py := x+d[0], y+d[1]; px >= 0 && px < k && py >= 0 && py < k {
					es = append(es, Entry{i, px*k + py, -1})
				}
			}
		}
	}
	m, _ := FromEntries(k*k, es)
	return m
}
