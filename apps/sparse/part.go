package sparse

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Partition is the split of a matrix's rows into contiguous blocks, one per
// node, and the neighbour graph the sparsity pattern gives.
type Partition struct {
	Blocks     []gridapp.Range
	Neighbours [][]int // by block: the blocks it exchanges x entries with, increasing
}

// Partitioned splits a's rows into parts balanced blocks. Blocks p and q
// neighbour when a row of one references a column of the other.
func Partitioned(a *Matrix, parts int) (Partition, error) {
	blocks, err := gridapp.Split(a.N, parts)
	if err != nil {
		return Partition{}, fmt.Errorf("sparse: %d rows over %d nodes: %w", a.N, parts, err)
	}
	pt := Partition{Blocks: blocks, Neighbours: make([][]int, parts)}
	linked := make([]map[int]bool, parts)
	for p := range linked {
		linked[p] = map[int]bool{}
	}
	for p, bl := range blocks {
		for i := bl.Lo; i < bl.Hi; i++ {
			cols, _ := a.Row(i)
			for _, j := range cols {
				if q := pt.owner(j); q != p {
					linked[p][q], linked[q][p] = true, true
				}
			}
		}
	}
	for p := range linked {
		for q := range linked[p] {
			pt.Neighbours[p] = append(pt.Neighbours[p], q)
		}
		sort.Ints(pt.Neighbours[p])
	}
	return pt, nil
}

// owner returns the block of row (or column) j.
func (pt Partition) owner(j int) int {
	return sort.Search(len(pt.Blocks), func(p int) bool { return pt.Blocks[p].Hi > j })
}

// needs returns the columns in block qb that the rows reference,
// increasing: what the block holding qb sends, and the layout of the halo
// from it.
func (r *Rows) needs(qb gridapp.Range) []int {
	var out []int
	for i := r.Lo; i < r.Hi; i++ {
		cols, _ := r.Row(i)
		for _, j := range cols {
			if j >= qb.Lo && j < qb.Hi {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// blockSpec is the Spec of a block's sub-task: its rows, each
// neighbour's rows (in the order of the part's neighbours) and the own
// columns each neighbour's rows reference (what the block sends it). It
// is all a worker needs besides its own rows of the file: the other rows
// are read at the submitter only.
type blockSpec struct {
	Block  int
	Lo, Hi int
	Ranges []gridapp.Range
	Sends  [][]int
}

// spec describes block p of a's partition.
func (pt Partition) spec(a *Matrix, p int) blockSpec {
	bl := pt.Blocks[p]
	s := blockSpec{Block: p, Lo: bl.Lo, Hi: bl.Hi}
	for _, nb := range pt.Neighbours[p] {
		nbb := pt.Blocks[nb]
		s.Ranges = append(s.Ranges, nbb)
		s.Sends = append(s.Sends, RowsOf(a, nbb.Lo, nbb.Hi).needs(bl))
	}
	return s
}

// Part is one node's block of rows: its rows with their columns renumbered
// into x, which holds the block's own entries then each neighbour's halo;
// the right-hand side and diagonal of its rows; and the own entries each
// neighbour needs.
type Part struct {
	method  Method
	m       int // own rows
	rowPtr  []int
	col     []int // into x
	val     []float64
	b, diag []float64
	x, next []float64
	halo    []int   // start of each neighbour's halo in x, and the end
	sendIdx [][]int // own entries (indices into x) sent to each neighbour
	out     [][]float64
	cores   []gridapp.Range
	pool    *gridapp.Pool
	job     func(core int) float64
}

// NewPart builds block p of the partition, x = 0. Jacobi sweeps the block's
// rows on cores cores; GaussSeidel on one (its rows depend on each other).
func NewPart(a *Matrix, b []float64, method Method, pt Partition, p, cores int) (*Part, error) {
	if p < 0 || p >= len(pt.Blocks) {
		return nil, fmt.Errorf("sparse: block %d of %d", p, len(pt.Blocks))
	}
	bl := pt.Blocks[p]
	s := pt.spec(a, p)
	diag := a.Diag()
	return newPart(RowsOf(a, bl.Lo, bl.Hi), b[bl.Lo:bl.Hi], diag[bl.Lo:bl.Hi], method, s, cores)
}

// newPart builds the block of rows the spec describes from those rows
// alone, with the block's right-hand side and diagonal: the halo from
// each neighbour holds the neighbour's columns the rows reference
// (increasing), and the spec says which own entries each neighbour needs.
func newPart(rows *Rows, b, diag []float64, method Method, s blockSpec, cores int) (*Part, error) {
	if len(s.Ranges) != len(s.Sends) {
		return nil, fmt.Errorf("sparse: block %d: %d neighbour ranges for %d send lists", s.Block, len(s.Ranges), len(s.Sends))
	}
	m := rows.Hi - rows.Lo
	q := &Part{method: method, m: m, halo: []int{m}}
	local := map[int]int{} // global column → index into x
	for j := rows.Lo; j < rows.Hi; j++ {
		local[j] = j - rows.Lo
	}
	for i, nb := range s.Ranges {
		for _, j := range rows.needs(nb) {
			local[j] = len(local)
		}
		q.halo = append(q.halo, len(local))
		idx := make([]int, len(s.Sends[i]))
		for k, j := range s.Sends[i] {
			if j < rows.Lo || j >= rows.Hi {
				return nil, fmt.Errorf("sparse: block %d: neighbour %d needs column %d outside the block", s.Block, i, j+1)
			}
			idx[k] = j - rows.Lo
		}
		q.sendIdx, q.out = append(q.sendIdx, idx), append(q.out, make([]float64, len(idx)))
	}
	q.rowPtr = []int{0}
	for i := rows.Lo; i < rows.Hi; i++ {
		cols, vals := rows.Row(i)
		for k, j := range cols {
			l, ok := local[j]
			if !ok {
				return nil, fmt.Errorf("sparse: block %d: row %d references column %d of no neighbour", s.Block, i+1, j+1)
			}
			q.col, q.val = append(q.col, l), append(q.val, vals[k])
		}
		q.rowPtr = append(q.rowPtr, len(q.col))
		q.b, q.diag = append(q.b, b[i-rows.Lo]), append(q.diag, diag[i-rows.Lo])
	}
	q.x, q.next = make([]float64, len(local)), make([]float64, q.m)
	if method == GaussSeidel {
		cores = 1
	}
	var err error
	if q.cores, err = gridapp.Split(q.m, min(max(cores, 1), q.m)); err != nil {
		return nil, err
	}
	q.pool = gridapp.NewPool(len(q.cores))
	q.job = func(c int) float64 { return q.sweepRows(q.cores[c]) }
	return q, nil
}

// Sweep performs one iteration of the method on the block and returns σ.
func (q *Part) Sweep() float64 {
	sigma := q.pool.Run(q.job)
	if q.method == Jacobi {
		copy(q.x[:q.m], q.next)
	}
	return sigma
}

// sweepRows updates own rows rs (rowUpdate's arithmetic): into next for
// Jacobi, in place for GaussSeidel.
func (q *Part) sweepRows(rs gridapp.Range) float64 {
	x := q.x
	var sigma float64
	for i := rs.Lo; i < rs.Hi; i++ {
		s := q.b[i]
		for k := q.rowPtr[i]; k < q.rowPtr[i+1]; k++ {
			if j := q.col[k]; j != i {
				s -= float64(q.val[k] * x[j])
			}
		}
		v := s / q.diag[i]
		sigma = max(sigma, math.Abs(v-x[i]))
		if q.method == GaussSeidel {
			x[i] = v
		} else {
			q.next[i] = v
		}
	}
	return sigma
}

// Outgoing gathers the own entries neighbour i's rows reference.
func (q *Part) Outgoing(i int) []float64 {
	out := q.out[i]
	for k, j := range q.sendIdx[i] {
		out[k] = q.x[j]
	}
	return out
}

// Halo returns the part of x that holds neighbour i's entries.
func (q *Part) Halo(i int) []float64 { return q.x[q.halo[i]:q.halo[i+1]] }

// Result returns the block's entries of x.
func (q *Part) Result() []float64 { return q.x[:q.m] }

// Close stops the part's pool.
func (q *Part) Close() { q.pool.Close() }
