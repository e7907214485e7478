package structured

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// kernels7 are the implementations of Jacobi7Ref under test; on a machine
// without AVX2 "avx2" is the Go kernel again.
var kernels7 = []struct {
	name string
	fn   func(next, u, rhs []float64, l Layout, box Box) float64
}{{"go", jacobi7Go}, {"avx2", jacobi7AVX2}}

var kernels5 = []struct {
	name string
	fn   func(next, u, rhs []float64, l Layout, box Box, a, d float64) float64
}{{"go", jacobi5Go}, {"avx2", jacobi5AVX2}}

// guard is the value every point a kernel must not write holds.
const guard = -12345.678

// sameFloat reports whether a and b have the same bits or are both NaN (two
// NaNs meeting may keep either payload).
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// padded makes the three arrays of a box with ghost layers, gaps between
// rows and planes (pad) and guard points before and after: u and rhs random
// (special values mixed in when special), next all guard. It returns the
// layout in the box's global coordinates.
func padded(rng *rand.Rand, box Box, dims, pad int, special bool) (next, u, rhs []float64, l Layout) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -1e308, 1e308}
	const lead = 7
	nx, ny, nz := box.X.Len()+2, box.Y.Len()+2, box.Z.Len()+2
	switch dims {
	case 3:
		l.SZ, l.SY = 1, nz+pad
		l.SX = ny*l.SY + pad
		l.Off = lead - (box.X.Lo-1)*l.SX - (box.Y.Lo-1)*l.SY - (box.Z.Lo - 1)
	case 2:
		l.SY, l.SX = 1, ny+pad
		l.Off = lead - (box.X.Lo-1)*l.SX - (box.Y.Lo - 1)
	}
	size := lead + nx*l.SX + 11
	next, u, rhs = make([]float64, size), make([]float64, size), make([]float64, size)
	for i := range u {
		next[i] = guard
		u[i], rhs[i] = rng.Float64()-0.5, (rng.Float64()-0.5)*1e-3
		if special && rng.IntN(8) == 0 {
			u[i] = specials[rng.IntN(len(specials))]
		}
		if special && rng.IntN(16) == 0 {
			rhs[i] = specials[rng.IntN(len(specials))]
		}
	}
	return next, u, rhs, l
}

// inBox says index c of layout l is a point of box.
func inBox(l Layout, box Box, c int) bool {
	for i := box.X.Lo; i < box.X.Hi; i++ {
		for j := box.Y.Lo; j < box.Y.Hi; j++ {
			for k := box.Z.Lo; k < box.Z.Hi; k++ {
				if l.At(i, j, k) == c {
					return true
				}
			}
		}
	}
	return false
}

// compare checks got against the reference's next (every point) and σ.
func compare(t *testing.T, what string, l Layout, box Box, got, want []float64, sg, sw float64) {
	t.Helper()
	if !sameFloat(sg, sw) {
		t.Fatalf("%s: σ %v, reference %v", what, sg, sw)
	}
	for c := range want {
		if !sameFloat(got[c], want[c]) {
			t.Fatalf("%s: next[%d] = %v, reference %v (in box: %v)", what, c, got[c], want[c], inBox(l, box, c))
		}
		if got[c] != guard && !inBox(l, box, c) {
			t.Fatalf("%s: next[%d] outside the box written", what, c)
		}
	}
}

// sizes are the row lengths tried: every length around the vector width
// and the overlap of the last block, and a few long ones.
var sizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 31, 48, 67}

// TestJacobi7MatchesRef: the Go and AVX2 kernels give Jacobi7Ref's values
// and σ bit for bit on guard-padded arrays (gaps between rows and planes,
// guards before and after), for boxes of every row length in sizes, several
// row and plane counts, at an offset in global coordinates, with special
// values (±0, ±Inf, NaN, subnormals) mixed in; nothing outside the box is
// written.
func TestJacobi7MatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	if !hasAVX2 || raceEnabled {
		t.Log("no AVX2 kernel on this build: comparing the Go kernel only")
	}
	for _, k := range kernels7 {
		for _, nk := range sizes {
			for trial := range 12 {
				ni, nj := 1+rng.IntN(4), 1+rng.IntN(5)
				off := rng.IntN(40)
				box := Box{X: Range{Lo: off, Hi: off + ni}, Y: Range{Lo: 3, Hi: 3 + nj}, Z: Range{Lo: off + 1, Hi: off + 1 + nk}}
				next, u, rhs, l := padded(rng, box, 3, rng.IntN(6), trial > 6)
				want := append([]float64(nil), next...)
				sw := Jacobi7Ref(want, u, rhs, l, box)
				sg := k.fn(next, u, rhs, l, box)
				compare(t, fmt.Sprintf("%s nk=%d trial %d box %v", k.name, nk, trial, box), l, box, next, want, sg, sw)
			}
		}
	}
}

// TestJacobi5MatchesRef is TestJacobi7MatchesRef for the 2-D kernel, with
// random coefficients a and d.
func TestJacobi5MatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 35))
	for _, k := range kernels5 {
		for _, nj := range sizes {
			for trial := range 12 {
				ni, off := 1+rng.IntN(6), rng.IntN(40)
				box := Box{X: Range{Lo: off, Hi: off + ni}, Y: Range{Lo: off + 2, Hi: off + 2 + nj}, Z: Range{Lo: 0, Hi: 1}}
				next, u, rhs, l := padded(rng, box, 2, rng.IntN(6), trial > 6)
				a, d := rng.Float64()*50, 1+rng.Float64()*200
				want := append([]float64(nil), next...)
				sw := Jacobi5Ref(want, u, rhs, l, box, a, d)
				sg := k.fn(next, u, rhs, l, box, a, d)
				compare(t, fmt.Sprintf("%s nj=%d trial %d box %v", k.name, nj, trial, box), l, box, next, want, sg, sw)
			}
		}
	}
}

// TestKernelChecks: a box whose stencil reaches outside the arrays, an
// empty box and a wrong layout are programmer errors (panics), caught
// before the unchecked loop.
func TestKernelChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	box := Box{X: Range{Lo: 0, Hi: 3}, Y: Range{Lo: 0, Hi: 3}, Z: Range{Lo: 0, Hi: 8}}
	next, u, rhs, l := padded(rng, box, 3, 0, false)
	for name, f := range map[string]func(){
		"beyond":  func() { Jacobi7(next, u, rhs, l, Box{X: Range{Lo: 0, Hi: 40}, Y: box.Y, Z: box.Z}) },
		"before":  func() { Jacobi7(next, u, rhs, l, Box{X: Range{Lo: -3, Hi: 1}, Y: box.Y, Z: box.Z}) },
		"empty":   func() { Jacobi7(next, u, rhs, l, Box{X: Range{Lo: 1, Hi: 1}, Y: box.Y, Z: box.Z}) },
		"layout":  func() { Jacobi5(next, u, rhs, l, box, 1, 4) },
		"short":   func() { Jacobi7(next[:20], u, rhs, l, box) },
		"layout7": func() { Jacobi7(next, u, rhs, Layout{SX: 10, SY: 1}, box) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if s := Jacobi7(next, u, rhs, l, box); math.IsNaN(s) {
		t.Errorf("the checked box: σ %v", s)
	}
}
