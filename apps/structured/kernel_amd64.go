//go:build !purego

package structured

import (
	"math"

	"golang.org/x/sys/cpu"
)

// j7AVX2 runs Jacobi7 on a box whose rows hold at least four points
// (kernel_amd64.s).
//
//go:noescape
func j7AVX2(next, u, rhs *float64, sx, sy, skip, last, ni, nj int, sigma *[4]uint64)

// j5AVX2 runs Jacobi5 on a box whose rows hold at least four points.
//
//go:noescape
func j5AVX2(next, u, rhs *float64, sx, last, ni int, a, d float64, sigma *[4]uint64)

func init() {
	if cpu.X86.HasAVX2 && !raceEnabled {
		jacobi7, jacobi5 = jacobi7AVX2, jacobi5AVX2
	}
}

// hasAVX2 says the vector kernels run on this machine (the tests say when
// they only compare the Go kernels).
var hasAVX2 = cpu.X86.HasAVX2

// jacobi7AVX2 is jacobi7Go with the rows done four points at a time by
// j7AVX2; rows shorter than four points stay in Go. The lanes do the same
// IEEE operations in the same order as Jacobi7Ref, so the bits are the same
// (TestJacobi7MatchesRef). The box has been checked against the arrays.
func jacobi7AVX2(next, u, rhs []float64, l Layout, box Box) float64 {
	nk := box.Z.Len()
	if nk < 4 {
		return jacobi7Go(next, u, rhs, l, box)
	}
	c := l.At(box.X.Lo, box.Y.Lo, box.Z.Lo)
	var lanes [4]uint64
	nj := box.Y.Len()
	j7AVX2(&next[c], &u[c], &rhs[c], 8*l.SX, 8*l.SY, 8*(l.SX-nj*l.SY), 8*(nk-4), box.X.Len(), nj, &lanes)
	return math.Float64frombits(max(lanes[0], lanes[1], lanes[2], lanes[3]))
}

// jacobi5AVX2 is jacobi5Go with j5AVX2, as jacobi7AVX2 is jacobi7Go.
func jacobi5AVX2(next, u, rhs []float64, l Layout, box Box, a, d float64) float64 {
	nj := box.Y.Len()
	if nj < 4 {
		return jacobi5Go(next, u, rhs, l, box, a, d)
	}
	c := l.At(box.X.Lo, box.Y.Lo, 0)
	var lanes [4]uint64
	j5AVX2(&next[c], &u[c], &rhs[c], 8*l.SX, 8*(nj-4), box.X.Len(), a, d, &lanes)
	return math.Float64frombits(max(lanes[0], lanes[1], lanes[2], lanes[3]))
}
