package sparse

import (
	"fmt"
	"sort"
)

// Rows is a block of rows [Lo, Hi) of an N×N sparse matrix in compressed
// sparse row form (as Matrix, row Lo first): what one node holds.
type Rows struct {
	N, Lo, Hi int
	RowPtr    []int
	Col       []int
	Val       []float64
}

// rowsOf builds rows [lo, hi) of an n×n matrix from their entries; a
// duplicate or an index outside the block or the matrix is an error.
func rowsOf(n, lo, hi int, es []Entry) (*Rows, error) {
	es = append([]Entry(nil), es...)
	sort.Slice(es, func(a, b int) bool {
		if es[a].I != es[b].I {
			return es[a].I < es[b].I
		}
		return es[a].J < es[b].J
	})
	r := &Rows{N: n, Lo: lo, Hi: hi, RowPtr: make([]int, hi-lo+1), Col: make([]int, len(es)), Val: make([]float64, len(es))}
	for k, e := range es {
		if e.I < lo || e.I >= hi || e.J < 0 || e.J >= n {
			return nil, fmt.Errorf("sparse: entry (%d, %d) outside rows %d…%d of the %d×%d matrix", e.I+1, e.J+1, lo+1, hi, n, n)
		}
		if k > 0 && es[k-1].I == e.I && es[k-1].J == e.J {
			return nil, fmt.Errorf("sparse: entry (%d, %d) given twice", e.I+1, e.J+1)
		}
		r.RowPtr[e.I-lo+1]++
		r.Col[k], r.Val[k] = e.J, e.V
	}
	for i := range hi - lo {
		r.RowPtr[i+1] += r.RowPtr[i]
	}
	return r, nil
}

// RowsOf returns rows [lo, hi) of m.
func RowsOf(m *Matrix, lo, hi int) *Rows {
	base := m.RowPtr[lo]
	ptr := make([]int, hi-lo+1)
	for i := range ptr {
		ptr[i] = m.RowPtr[lo+i] - base
	}
	end := m.RowPtr[hi]
	return &Rows{N: m.N, Lo: lo, Hi: hi, RowPtr: ptr, Col: m.Col[base:end], Val: m.Val[base:end]}
}

// Row returns row i's columns and values (Lo ≤ i < Hi).
func (r *Rows) Row(i int) ([]int, []float64) {
	lo, hi := r.RowPtr[i-r.Lo], r.RowPtr[i-r.Lo+1]
	return r.Col[lo:hi], r.Val[lo:hi]
}

// diag returns the block's diagonal entries (row Lo first) and the first
// row whose diagonal is zero or missing: Jacobi divides by it.
func (r *Rows) diag() ([]float64, error) {
	d := make([]float64, r.Hi-r.Lo)
	for i := r.Lo; i < r.Hi; i++ {
		cols, vals := r.Row(i)
		for k, j := range cols {
			if j == i {
				d[i-r.Lo] = vals[k]
			}
		}
		if d[i-r.Lo] == 0 {
			return nil, fmt.Errorf("sparse: row %d has no nonzero diagonal entry (Jacobi divides by it)", i+1)
		}
	}
	return d, nil
}

// mulOnes returns the block's rows of A·𝟙 (MulOnes).
func (r *Rows) mulOnes() []float64 {
	b := make([]float64, r.Hi-r.Lo)
	for i := r.Lo; i < r.Hi; i++ {
		_, vals := r.Row(i)
		var s float64
		for _, v := range vals {
			s += v
		}
		b[i-r.Lo] = s
	}
	return b
}
