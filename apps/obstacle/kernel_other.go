//go:build !amd64 || purego

package obstacle

// kernelRowAVX2 is only available on amd64; elsewhere it is the Go kernel.
func kernelRowAVX2(out, c, xm, xp, ym, yp, phiZ []float64, phiRow, hhf float64) float64 {
	return kernelRowGo(out, c, xm, xp, ym, yp, phiZ, phiRow, hhf)
}
