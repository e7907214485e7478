package obstacle

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
)

// runSlabs runs iters synchronous iterations of the b·a decomposition
// in-process, copying interface planes between neighbours before every sweep
// as the network does, and returns the assembled grid and the global σ of
// every iteration.
func runSlabs(t *testing.T, p Problem, b, a, iters int) ([]float64, []float64) {
	t.Helper()
	parts, err := Split(p.N, b)
	if err != nil {
		t.Fatal(err)
	}
	slabs := make([]*Slab, b)
	for i, r := range parts {
		s, err := NewSlab(p, r, a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		slabs[i] = s
	}
	sigmas := make([]float64, 0, iters)
	for range iters {
		for i, s := range slabs {
			if i > 0 {
				copy(s.LowHalo(), slabs[i-1].HighPlane())
			}
			if i < b-1 {
				copy(s.HighHalo(), slabs[i+1].LowPlane())
			}
		}
		var sigma float64
		for _, s := range slabs {
			sigma = max(sigma, s.Sweep())
		}
		sigmas = append(sigmas, sigma)
	}
	values := make([][]float64, b)
	for i, s := range slabs {
		if s.Iteration() != iters {
			t.Fatalf("slab %d: Iteration() = %d, want %d", i, s.Iteration(), iters)
		}
		values[i] = s.Values()
	}
	u, err := Assemble(p, parts, values)
	if err != nil {
		t.Fatal(err)
	}
	return u, sigmas
}

// serialRun runs iters SerialSweep iterations from the initial guess.
func serialRun(p Problem, iters int) ([]float64, []float64) {
	u := InitialGuess(p)
	next := make([]float64, len(u))
	var sigmas []float64
	for range iters {
		sigmas = append(sigmas, SerialSweep(p, u, next))
		u, next = next, u
	}
	return u, sigmas
}

func firstBitDiff(a, b []float64) int {
	if len(a) != len(b) {
		return -2
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestSlabsBitForBitSerial is the strongest correctness test of the
// decomposition: b slabs of a cores each, exchanging planes synchronously,
// must give exactly the bits of the serial reference after every iteration
// count, uneven splits included.
func TestSlabsBitForBitSerial(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		const iters = 7
		for _, n := range []int{5, 7, 10} {
			p := Problem{N: n, Eps: 1e-8}
			for _, it := range []int{1, 2, iters} {
				want, wantSig := serialRun(p, it)
				for b := 1; b <= 4; b++ {
					for a := 1; a <= 2; a++ {
						t.Run(fmt.Sprintf("n=%d/iters=%d/b=%d/a=%d", n, it, b, a), func(t *testing.T) {
							got, sig := runSlabs(t, p, b, a, it)
							if i := firstBitDiff(got, want); i != -1 {
								t.Fatalf("grid differs from serial at index %d: %v vs %v", i, got[i], want[i])
							}
							if i := firstBitDiff(sig, wantSig); i != -1 {
								t.Fatalf("σ of iteration %d differs: %v vs %v", i+1, sig[i], wantSig[i])
							}
						})
					}
				}
			}
		}
	})
}

// TestSlabsBitForBitLong runs a larger grid far enough for the solution to
// develop its contact set, with three cores per node.
func TestSlabsBitForBitLong(t *testing.T) {
	forEachKernel(t, testSlabsBitForBitLong)
}

func testSlabsBitForBitLong(t *testing.T) {
	p := Problem{N: 16}
	want, _ := serialRun(p, 60)
	for _, tc := range []struct {
		name string
		b, a int
	}{
		{"b=3/a=3", 3, 3}, {"b=5/a=2", 5, 2}, {"b=16/a=1", 16, 1}, {"b=1/a=16", 1, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := runSlabs(t, p, tc.b, tc.a, 60)
			if i := firstBitDiff(got, want); i != -1 {
				t.Fatalf("grid differs from serial at index %d", i)
			}
		})
	}
}

// TestKernelRowGuards proves the row kernel writes exactly its row: the
// output slice is embedded between guard values, which must survive.
func TestKernelRowGuards(t *testing.T) {
	forEachKernel(t, testKernelRowGuards)
}

func testKernelRowGuards(t *testing.T) {
	const guard = -12345.678
	for _, n := range []int{1, 2, 3, 5, 6, 7, 8, 9, 10, 33} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			pad := 7
			buf := make([]float64, n+2*pad)
			for i := range buf {
				buf[i] = guard
			}
			in := func(off float64) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = off + float64(i)/10
				}
				return v
			}
			out := buf[pad : pad+n]
			c, phiZ := in(0.1), in(0.3)
			// phiRow 0.05 makes φ = 0.05 − phiZ[k] cross (s − 0.01)/6 along
			// the row, so both branches of the projection run.
			const phiRow = 0.05
			sg := kernelRow(out, c, in(0.2), in(0.3), in(0.4), in(0.5), phiZ, phiRow, -0.01)
			for i := range pad {
				if buf[i] != guard || buf[len(buf)-1-i] != guard {
					t.Fatalf("guard overwritten: %v", buf)
				}
			}
			var want float64
			for k := range n {
				s := (((in(0.2)[k] + in(0.3)[k]) + in(0.4)[k]) + in(0.5)[k])
				if k > 0 {
					s += c[k-1]
				} else {
					s += 0
				}
				if k < n-1 {
					s += c[k+1]
				} else {
					s += 0
				}
				v := max(phiRow-phiZ[k], (s-0.01)/6.0)
				if math.Float64bits(out[k]) != math.Float64bits(v) {
					t.Fatalf("out[%d] = %v, want %v", k, out[k], v)
				}
				want = max(want, math.Abs(v-c[k]))
			}
			if sg != want {
				t.Fatalf("σ = %v, want %v", sg, want)
			}
		})
	}
}

// TestSlabGuardPadded embeds a slab's arrays in guard-padded buffers and
// checks that sweeps never write outside the owned planes: not the halos,
// not φ, not past either end.
func TestSlabGuardPadded(t *testing.T) {
	forEachKernel(t, testSlabGuardPadded)
}

func testSlabGuardPadded(t *testing.T) {
	const guard = 9.75e300
	p := Problem{N: 9}
	for _, tc := range []struct {
		name  string
		r     Range
		cores int
	}{
		{"interior/a=1", Range{Lo: 3, Hi: 6}, 1},
		{"interior/a=4", Range{Lo: 3, Hi: 6}, 4},
		{"bottom/a=2", Range{Lo: 0, Hi: 2}, 2},
		{"top/a=3", Range{Lo: 8, Hi: 9}, 3},
		{"all/a=9", Range{Lo: 0, Hi: 9}, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSlab(p, tc.r, tc.cores)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			padded := func(v []float64) ([]float64, []float64) {
				const pad = 64
				buf := make([]float64, len(v)+2*pad)
				for i := range buf {
					buf[i] = guard
				}
				copy(buf[pad:], v)
				return buf, buf[pad : pad+len(v) : pad+len(v)]
			}
			bufs := make([][]float64, 0, 7)
			var b []float64
			b, s.u = padded(s.u)
			bufs = append(bufs, b)
			b, s.next = padded(s.next)
			bufs = append(bufs, b)
			b, s.phiRow = padded(s.phiRow)
			bufs = append(bufs, b)
			b, s.phiZ = padded(s.phiZ)
			bufs = append(bufs, b)
			b, s.haloLo = padded(s.haloLo)
			bufs = append(bufs, b)
			b, s.haloHi = padded(s.haloHi)
			bufs = append(bufs, b)
			b, s.zero = padded(s.zero)
			bufs = append(bufs, b)
			for i := range s.haloLo {
				if tc.r.Lo > 0 {
					s.haloLo[i] = 0.01
				}
				if tc.r.Hi < p.N {
					s.haloHi[i] = 0.02
				}
			}
			haloLo := append([]float64(nil), s.haloLo...)
			haloHi := append([]float64(nil), s.haloHi...)
			phi := append(append([]float64(nil), s.phiRow...), s.phiZ...)
			for range 3 {
				s.Sweep()
			}
			for bi, buf := range bufs {
				for i := range 64 {
					if buf[i] != guard || buf[len(buf)-1-i] != guard {
						t.Fatalf("array %d: guard %d overwritten", bi, i)
					}
				}
			}
			if firstBitDiff(haloLo, s.haloLo) != -1 || firstBitDiff(haloHi, s.haloHi) != -1 {
				t.Fatal("sweep wrote into a halo plane")
			}
			if firstBitDiff(phi, append(append([]float64(nil), s.phiRow...), s.phiZ...)) != -1 {
				t.Fatal("sweep wrote into φ")
			}
			for _, v := range s.zero {
				if v != 0 {
					t.Fatal("sweep wrote into the zero boundary row")
				}
			}
		})
	}
}

func TestSlabSweepAllocatesNothing(t *testing.T) {
	for _, cores := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("a=%d", cores), func(t *testing.T) {
			s, err := NewSlab(Problem{N: 12}, Range{Lo: 2, Hi: 7}, cores)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if allocs := testing.AllocsPerRun(20, func() { s.Sweep() }); allocs != 0 {
				t.Fatalf("Sweep allocates %v times per call, want 0", allocs)
			}
		})
	}
}

func TestSlabBoundaryHalosAndPlanes(t *testing.T) {
	p := Problem{N: 6}
	for _, tc := range []struct {
		name            string
		r               Range
		lowNil, highNil bool
	}{
		{"whole", Range{Lo: 0, Hi: 6}, true, true},
		{"bottom", Range{Lo: 0, Hi: 3}, true, false},
		{"middle", Range{Lo: 2, Hi: 4}, false, false},
		{"top", Range{Lo: 4, Hi: 6}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSlab(p, tc.r, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if (s.LowHalo() == nil) != tc.lowNil || (s.HighHalo() == nil) != tc.highNil {
				t.Fatalf("halo nil = %v/%v, want %v/%v", s.LowHalo() == nil, s.HighHalo() == nil, tc.lowNil, tc.highNil)
			}
			plane := p.N * p.N
			if !tc.lowNil && len(s.LowHalo()) != plane || !tc.highNil && len(s.HighHalo()) != plane {
				t.Fatal("halo plane has the wrong length")
			}
			s.Sweep()
			v := s.Values()
			if len(v) != tc.r.Len()*plane {
				t.Fatalf("len(Values()) = %d, want %d", len(v), tc.r.Len()*plane)
			}
			if firstBitDiff(s.LowPlane(), v[:plane]) != -1 || firstBitDiff(s.HighPlane(), v[len(v)-plane:]) != -1 {
				t.Fatal("LowPlane/HighPlane are not the first/last owned planes")
			}
		})
	}
}

func TestNewSlabErrors(t *testing.T) {
	p := Problem{N: 4}
	for _, tc := range []struct {
		name  string
		p     Problem
		r     Range
		cores int
		want  error
	}{
		{"bad problem", Problem{N: 0}, Range{Lo: 0, Hi: 1}, 1, ErrInvalid},
		{"empty range", p, Range{Lo: 2, Hi: 2}, 1, ErrSlab},
		{"range past n", p, Range{Lo: 2, Hi: 5}, 1, ErrSlab},
		{"negative lo", p, Range{Lo: -1, Hi: 2}, 1, ErrSlab},
		{"too many cores", p, Range{Lo: 0, Hi: 4}, 5, ErrSplit},
		{"no cores", p, Range{Lo: 0, Hi: 4}, 0, ErrSlab},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSlab(tc.p, tc.r, tc.cores)
			if s != nil || !errors.Is(err, tc.want) {
				t.Fatalf("NewSlab = %v, %v; want error %v", s, err, tc.want)
			}
		})
	}
}

func TestSlabCloseIdempotentAndSweepAfterClose(t *testing.T) {
	p := Problem{N: 8}
	before := runtime.NumGoroutine()
	s, err := NewSlab(p, Range{Lo: 0, Hi: 8}, 4)
	if err != nil {
		t.Fatal(err)
	}
	s.Sweep()
	s.Close()
	s.Close()
	if got := runtime.NumGoroutine(); got > before {
		t.Fatalf("%d goroutines after Close, %d before NewSlab", got, before)
	}
	s.Sweep() // runs inline after Close
	want, _ := serialRun(p, 2)
	if firstBitDiff(s.Values(), want) != -1 {
		t.Fatal("sweep after Close differs from serial")
	}
}

func TestAssembleErrors(t *testing.T) {
	p := Problem{N: 2}
	plane := make([]float64, 4)
	for _, tc := range []struct {
		name   string
		parts  []Range
		values [][]float64
	}{
		{"count mismatch", []Range{{Lo: 0, Hi: 2}}, nil},
		{"gap", []Range{{Lo: 0, Hi: 1}, {Lo: 1, Hi: 1}}, [][]float64{plane, plane}},
		{"overlap", []Range{{Lo: 0, Hi: 1}, {Lo: 0, Hi: 2}}, [][]float64{plane, plane}},
		{"short", []Range{{Lo: 0, Hi: 1}}, [][]float64{plane}},
		{"wrong length", []Range{{Lo: 0, Hi: 1}, {Lo: 1, Hi: 2}}, [][]float64{plane, plane[:3]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Assemble(p, tc.parts, tc.values); !errors.Is(err, ErrSlab) {
				t.Fatalf("Assemble error = %v, want ErrSlab", err)
			}
		})
	}
}

// TestSlabMemoryBudget checks that a slab holds no more than its u, u' and φ
// (budget: 1.2 × 3·n³·8 bytes for a single-node slab) after construction and
// a few sweeps. φ is held factored, so the expected figure is ≈ 2/3 of 3·n³·8.
func TestSlabMemoryBudget(t *testing.T) {
	const n = 96
	held := slabHeapBytes(t, n, 3)
	needed := float64(3 * n * n * n * 8)
	if want := float64(SlabBytes(n, n)); held < 0.99*want || held > 1.01*want {
		t.Errorf("slab holds %.0f bytes, SlabBytes says %.0f (±1 %% heap noise allowed)", held, want)
	}
	if ratio := held / needed; ratio > 1.2 || ratio < 0.6 {
		t.Fatalf("slab holds %.0f bytes = %.3f × 3·n³·8, want ≤ 1.2 (and ≥ 0.6, or the measurement is broken)", held, ratio)
	}
}

// slabHeapBytes returns the live heap growth caused by a single-node slab of
// size n after sweeps sweeps, the slab still reachable.
func slabHeapBytes(tb testing.TB, n, sweeps int) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := NewSlab(Problem{N: n}, Range{Lo: 0, Hi: n}, 2)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	for range sweeps {
		s.Sweep()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}
