package structured

import "math"

// Layout is the memory layout of a padded array (a part's box with its
// ghost layers, flat): point (i, j, k) lives at Off + i·SX + j·SY + k·SZ.
// The coordinates are global (as in PETSc's DMDAVecGetArray), so Off is
// usually negative. A 3-D layout has SZ = 1, a 2-D one SY = 1 and SZ = 0
// (k is always 0), a 1-D one SX = 1.
type Layout struct {
	Off, SX, SY, SZ int
}

// At returns the index of point (i, j, k).
func (l Layout) At(i, j, k int) int { return l.Off + i*l.SX + j*l.SY + k*l.SZ }

// checkBox panics (a programmer error) unless every point of box and its
// neighbours at distance reach along the strides lies inside arrays of
// length n, and the box is not empty.
func checkBox(l Layout, box Box, reach, n int) {
	if box.Empty() {
		panic("structured: kernel on an empty box")
	}
	lo := l.At(box.X.Lo, box.Y.Lo, box.Z.Lo) - reach
	hi := l.At(box.X.Hi-1, box.Y.Hi-1, box.Z.Hi-1) + reach
	if lo < 0 || hi >= n {
		panic("structured: kernel box outside the arrays")
	}
}

// Jacobi7Ref is the specification of Jacobi7: the plain loop over the box,
// reading u and rhs and writing next (three arrays of layout l, SZ = 1):
// for every point c of box, in this order of operations,
//
//	s  = ((((u[c−SX] + u[c+SX]) + u[c−SY]) + u[c+SY]) + u[c−1]) + u[c+1]
//	u' = (s + rhs[c]) / 6.0
//
// (../DESIGN.md's Poisson and obstacle arithmetic, with rhs = h²f), and it
// returns σ = max |u' − u| over the box. next must not overlap u or rhs.
func Jacobi7Ref(next, u, rhs []float64, l Layout, box Box) float64 {
	var sigma float64
	for i := box.X.Lo; i < box.X.Hi; i++ {
		for j := box.Y.Lo; j < box.Y.Hi; j++ {
			for k := box.Z.Lo; k < box.Z.Hi; k++ {
				c := l.At(i, j, k)
				s := ((((u[c-l.SX] + u[c+l.SX]) + u[c-l.SY]) + u[c+l.SY]) + u[c-1]) + u[c+1]
				v := (s + rhs[c]) / 6.0
				sigma = max(sigma, math.Abs(v-u[c]))
				next[c] = v
			}
		}
	}
	return sigma
}

// Jacobi5Ref is the specification of Jacobi5, the 2-D five-point update
// (layout l with SY = 1; box.Z is [0, 1)): for every point c of box,
//
//	s  = ((u[c−SX] + u[c+SX]) + u[c−1]) + u[c+1]
//	u' = (rhs[c] + a·s) / d
//
// with a·s rounded before the addition (no fused multiply-add), and it
// returns σ = max |u' − u| over the box. The Laplace/Poisson update
// (s + h²f)/4 is a = 1, d = 4; an implicit Euler step of the heat
// equation is a = r, d = 1 + 4r, rhs the previous time level.
func Jacobi5Ref(next, u, rhs []float64, l Layout, box Box, a, d float64) float64 {
	var sigma float64
	for i := box.X.Lo; i < box.X.Hi; i++ {
		for j := box.Y.Lo; j < box.Y.Hi; j++ {
			c := l.At(i, j, 0)
			s := ((u[c-l.SX] + u[c+l.SX]) + u[c-1]) + u[c+1]
			v := (rhs[c] + float64(a*s)) / d
			sigma = max(sigma, math.Abs(v-u[c]))
			next[c] = v
		}
	}
	return sigma
}

// Jacobi7 is Jacobi7Ref, fast: the same values bit for bit (a NaN may
// carry another payload), with AVX2 on amd64 CPUs that have it. It checks
// the layout and the box once (a box whose stencil reaches outside the
// arrays, or a layout with SZ ≠ 1, is a programmer error and panics), then
// runs unchecked.
func Jacobi7(next, u, rhs []float64, l Layout, box Box) float64 {
	if l.SZ != 1 || l.SY < 1 || l.SX < 1 {
		panic("structured: Jacobi7 needs a 3-D layout (SZ = 1)")
	}
	checkBox(l, box, max(l.SX, l.SY), min(len(u), len(next), len(rhs)))
	return jacobi7(next, u, rhs, l, box)
}

// Jacobi5 is Jacobi5Ref, fast, as Jacobi7 is Jacobi7Ref. The layout must
// have SY = 1.
func Jacobi5(next, u, rhs []float64, l Layout, box Box, a, d float64) float64 {
	if l.SY != 1 || l.SX < 1 || box.Z.Len() != 1 {
		panic("structured: Jacobi5 needs a 2-D layout (SY = 1, one k)")
	}
	checkBox(l, box, l.SX, min(len(u), len(next), len(rhs)))
	return jacobi5(next, u, rhs, l, box, a, d)
}

// jacobi7 and jacobi5 are the kernels Jacobi7 and Jacobi5 use: the Go
// loops, or the AVX2 ones where the CPU has AVX2 (chosen at start-up;
// tests swap them).
var (
	jacobi7 = jacobi7Go
	jacobi5 = jacobi5Go
)

// absBits returns the bits of |x|. Non-negative float64 values (NaN
// included, which then wins as with max) order like their bits as uint64,
// so the kernels keep σ as bits with an integer max (no branch), which
// gives max(σ, |d|)'s value more cheaply than the builtin max.
func absBits(x float64) uint64 { return math.Float64bits(x) &^ (1 << 63) }

// jacobi7Go is Jacobi7Ref with each row resliced once (no bounds checks in
// the inner loop) and σ kept as bits.
func jacobi7Go(next, u, rhs []float64, l Layout, box Box) float64 {
	var sigma uint64
	nk := box.Z.Len()
	for i := box.X.Lo; i < box.X.Hi; i++ {
		for j := box.Y.Lo; j < box.Y.Hi; j++ {
			c := l.At(i, j, box.Z.Lo)
			out, f := next[c:c+nk], rhs[c:c+nk]
			cur := u[c-1 : c+nk+1]
			xm, xp := u[c-l.SX:c-l.SX+nk], u[c+l.SX:c+l.SX+nk]
			ym, yp := u[c-l.SY:c-l.SY+nk], u[c+l.SY:c+l.SY+nk]
			for k := range out {
				s := ((((xm[k] + xp[k]) + ym[k]) + yp[k]) + cur[k]) + cur[k+2]
				v := (s + f[k]) / 6.0
				sigma = max(sigma, absBits(v-cur[k+1]))
				out[k] = v
			}
		}
	}
	return math.Float64frombits(sigma)
}

// jacobi5Go is Jacobi5Ref as jacobi7Go is Jacobi7Ref.
func jacobi5Go(next, u, rhs []float64, l Layout, box Box, a, d float64) float64 {
	var sigma uint64
	nj := box.Y.Len()
	for i := box.X.Lo; i < box.X.Hi; i++ {
		c := l.At(i, box.Y.Lo, 0)
		out, f := next[c:c+nj], rhs[c:c+nj]
		cur := u[c-1 : c+nj+1]
		xm, xp := u[c-l.SX:c-l.SX+nj], u[c+l.SX:c+l.SX+nj]
		for j := range out {
			s := ((xm[j] + xp[j]) + cur[j]) + cur[j+2]
			v := (f[j] + float64(a*s)) / d
			sigma = max(sigma, absBits(v-cur[j+1]))
			out[j] = v
		}
	}
	return math.Float64frombits(sigma)
}
