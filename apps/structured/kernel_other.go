//go:build !amd64 || purego

package structured

// hasAVX2 is false off amd64: the vector kernels are the Go ones.
const hasAVX2 = false

// jacobi7AVX2 is only available on amd64; elsewhere it is the Go kernel.
func jacobi7AVX2(next, u, rhs []float64, l Layout, box Box) float64 {
	return jacobi7Go(next, u, rhs, l, box)
}

// jacobi5AVX2 is only available on amd64; elsewhere it is the Go kernel.
func jacobi5AVX2(next, u, rhs []float64, l Layout, box Box, a, d float64) float64 {
	return jacobi5Go(next, u, rhs, l, box, a, d)
}
