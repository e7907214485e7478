package jobs

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
		phi := s.phi[off : off+plane]
		for j := ys.Lo; j < ys.Hi; j++ {
			ym, yp := s.zero, s.zero
			if j > 0 {
				ym = cur[(j-1)*n : j*n]
			}
			if j < n-1 {
				yp = cur[(j+1)*n : (j+2)*n]
			}
			r := j * n
			sg := kernelRow(out[r:r+n], cur[r:r+n], xm[r:r+n], xp[r:r+n], ym, yp, phi[r:r+n], s.hhf)
			sigma = max(sigma, sg)
		}
	}
	return sigma
}

// kernelRow updates one z-row: out[k] = max(φ[k], (s + hhf)/6) with
// s = ((((xm[k] + xp[k]) + ym[k]) + yp[k]) + c[k−1]) + c[k+1] and zero beyond
// the row's ends. All slices must have the length of out; they are resliced
// once so that the inner loop carries no bounds checks.
func kernelRow(out, c, xm, xp, ym, yp, phi []float64, hhf float64) float64 {
	n := len(out)
	if n == 0 {
		return 0
	}
	c, xm, xp, ym, yp, phi = c[:n], xm[:n], xp[:n], ym[:n], yp[:n], phi[:n]
	var sigma float64
	zm, cur := 0.0, c[0]
	for k := 0; k < n-1; k++ {
		zp := c[k+1]
		s := ((((xm[k] + xp[k]) + ym[k]) + yp[k]) + zm) + zp
		v := max(phi[k], (s+hhf)/6.0)
		sigma = max(sigma, math.Abs(v-cur))
		out[k] = v
		zm, cur = cur, zp
	}
	k := n - 1
	s := ((((xm[k] + xp[k]) + ym[k]) + yp[k]) + zm) + 0
	v := max(phi[k], (s+hhf)/6.0)
	sigma = max(sigma, math.Abs(v-cur))
	out[k] = v
	return sigma
}
