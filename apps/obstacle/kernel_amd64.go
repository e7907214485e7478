//go:build !purego

package obstacle

import (
	"math"

	"golang.org/x/sys/cpu"
)

// rowAVX2 runs 4·blocks points of the row kernel with AVX2 (kernel_amd64.s).
//
//go:noescape
func rowAVX2(out, c, xm, xp, ym, yp, phiZ *float64, blocks int, phiRow, hhf float64, sigma *[4]uint64)

func init() {
	if cpu.X86.HasAVX2 && !raceEnabled {
		kernelRow = kernelRowAVX2
	}
}

// kernelRowAVX2 is kernelRowGo with the interior points done four at a time
// by rowAVX2. When n − 2 is not a multiple of four, one more block ends at
// the last interior point, overlapping the previous one: the overlapped
// points are recomputed from the same inputs, to the same bits. Only the two
// row ends stay scalar. The lanes do the same IEEE operations in the same
// order as kernelRowGo, so the bits are the same (TestKernelRowAVX2MatchesGo).
func kernelRowAVX2(out, c, xm, xp, ym, yp, phiZ []float64, phiRow, hhf float64) float64 {
	n := len(out)
	if n < 6 {
		return kernelRowGo(out, c, xm, xp, ym, yp, phiZ, phiRow, hhf)
	}
	c, xm, xp, ym, yp, phiZ = c[:n], xm[:n], xp[:n], ym[:n], yp[:n], phiZ[:n]
	var lanes [4]uint64
	rowAVX2(&out[1], &c[1], &xm[1], &xp[1], &ym[1], &yp[1], &phiZ[1], (n-2)/4, phiRow, hhf, &lanes)
	sigma := max(lanes[0], lanes[1], lanes[2], lanes[3])
	if (n-2)%4 != 0 {
		k := n - 5
		rowAVX2(&out[k], &c[k], &xm[k], &xp[k], &ym[k], &yp[k], &phiZ[k], 1, phiRow, hhf, &lanes)
		sigma = max(sigma, lanes[0], lanes[1], lanes[2], lanes[3])
	}
	sigma = max(sigma, kernelPoint(out, c, xm, xp, ym, yp, phiZ, phiRow, hhf, 0))
	sigma = max(sigma, kernelPoint(out, c, xm, xp, ym, yp, phiZ, phiRow, hhf, n-1))
	return math.Float64frombits(sigma)
}
