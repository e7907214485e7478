package obstacle

import "math"

// sweepRows updates rows y ∈ ys of every owned plane from s.u into s.next and
// returns their σ. It is the fast form of SerialSweep: identical arithmetic,
// boundary handling hoisted out of the inner loop.
func (s *Slab) sweepRows(ys Range) float64 {
	n, plane := s.n, s.plane
	m := s.r.Len()
	var sigma float64
	for li := range m {
		off := li * plane
		xm := s.haloLo
		if li > 0 {
			xm = s.u[off-plane : off]
		}
		xp := s.haloHi
		if li < m-1 {
			xp = s.u[off+plane : off+2*plane]
		}
		cur := s.u[off : off+plane]
		out := s.next[off : off+plane]
		rowPhi := s.phiRow[li*n : (li+1)*n]
		for j := ys.Lo; j < ys.Hi; j++ {
			ym, yp := s.zero, s.zero
			if j > 0 {
				ym = cur[(j-1)*n : j*n]
			}
			if j < n-1 {
				yp = cur[(j+1)*n : (j+2)*n]
			}
			r := j * n
			sg := kernelRow(out[r:r+n], cur[r:r+n], xm[r:r+n], xp[r:r+n], ym, yp, s.phiZ, rowPhi[j], s.hhf)
			sigma = max(sigma, sg)
		}
	}
	return sigma
}

// kernelRow is the row kernel Sweep uses: kernelRowGo, or kernelRowAVX2 on
// amd64 CPUs with AVX2 (chosen once at start-up; tests may swap it).
var kernelRow = kernelRowGo

// kernelRowGo updates one z-row: out[k] = max(φ, (s + hhf)/6) with
// φ = phiRow − phiZ[k] and
// s = ((((xm[k] + xp[k]) + ym[k]) + yp[k]) + c[k−1]) + c[k+1] and zero beyond
// the row's ends, and returns the row's σ = max|out[k] − c[k]|. All slices
// must have the length of out; they are resliced once so that the inner loop
// carries no bounds checks.
//
// It gives the bits of SerialSweep's max(φ, v) and max(σ, |d|) more cheaply
// than the builtin max, which must order −0 below +0 and propagate NaN with a
// five-instruction sequence:
//   - "if v < φ { v = φ }" differs from max(φ, v) only for NaN (both keep it)
//     and for v = −0 with φ = +0; v = (s + hhf)/6 is never −0, because
//     s + hhf = 0 rounds to +0 and hhf < 0.
//   - |d| is non-negative, and non-negative float64 values (NaN included,
//     which then wins, as with max) order like their bit patterns as uint64,
//     so σ is kept as bits with an integer max (CMP + CMOV, no branch).
func kernelRowGo(out, c, xm, xp, ym, yp, phiZ []float64, phiRow, hhf float64) float64 {
	n := len(out)
	if n == 0 {
		return 0
	}
	c, xm, xp, ym, yp, phiZ = c[:n], xm[:n], xp[:n], ym[:n], yp[:n], phiZ[:n]
	const signBit = 1 << 63
	var sigma uint64
	zm, cur := 0.0, c[0]
	for k := 0; k < n-1; k++ {
		zp := c[k+1]
		v := (((((xm[k] + xp[k]) + ym[k]) + yp[k]) + zm) + zp + hhf) / 6.0
		if phi := phiRow - phiZ[k]; v < phi {
			v = phi
		}
		sigma = max(sigma, math.Float64bits(v-cur)&^signBit)
		out[k] = v
		zm, cur = cur, zp
	}
	k := n - 1
	v := (((((xm[k] + xp[k]) + ym[k]) + yp[k]) + zm) + 0 + hhf) / 6.0
	if phi := phiRow - phiZ[k]; v < phi {
		v = phi
	}
	sigma = max(sigma, math.Float64bits(v-cur)&^signBit)
	out[k] = v
	return math.Float64frombits(sigma)
}

// kernelPoint updates out[k] of one z-row exactly as kernelRowGo does and
// returns the bits of |out[k] − c[k]|. The vector kernels use it for the
// row ends and remainders.
func kernelPoint(out, c, xm, xp, ym, yp, phiZ []float64, phiRow, hhf float64, k int) uint64 {
	zm, zp := 0.0, 0.0
	if k > 0 {
		zm = c[k-1]
	}
	if k+1 < len(c) {
		zp = c[k+1]
	}
	v := (((((xm[k] + xp[k]) + ym[k]) + yp[k]) + zm) + zp + hhf) / 6.0
	if phi := phiRow - phiZ[k]; v < phi {
		v = phi
	}
	out[k] = v
	return math.Float64bits(v-c[k]) &^ (1 << 63)
}
