package obstacle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// rowKernels are the row kernels a Slab may use; kernelRowAVX2 is
// kernelRowGo where AVX2 is missing.
var rowKernels = []struct {
	name string
	fn   func(out, c, xm, xp, ym, yp, phiZ []float64, phiRow, hhf float64) float64
}{{"go", kernelRowGo}, {"avx2", kernelRowAVX2}}

// forEachKernel runs f once with each row kernel installed in Slab.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	saved := kernelRow
	t.Cleanup(func() { kernelRow = saved })
	for _, k := range rowKernels {
		kernelRow = k.fn
		t.Run(k.name, f)
	}
	kernelRow = saved
}

// TestKernelRowAVX2MatchesGo compares the vector kernel with the Go kernel
// bit for bit on random rows of every length up to 70, with special values
// (±0, ±Inf, NaN, subnormals) mixed in. NaN payloads may differ when two
// NaNs meet (operand order), so a NaN only has to be matched by a NaN.
func TestKernelRowAVX2MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -1e308, 1e308}
	for n := 1; n <= 70; n++ {
		for trial := range 20 {
			rows := make([][]float64, 8) // out, c, xm, xp, ym, yp, phiZ and out for Go
			for i := range rows {
				rows[i] = make([]float64, n)
				for k := range rows[i] {
					rows[i][k] = rng.Float64() - 0.5
					if trial > 10 && rng.IntN(8) == 0 {
						rows[i][k] = special[rng.IntN(len(special))]
					}
				}
			}
			phiRow, hhf := rng.Float64()-0.5, -rng.Float64()*1e-3
			sv := kernelRowAVX2(rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], phiRow, hhf)
			sg := kernelRowGo(rows[7], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], phiRow, hhf)
			if !sameFloat(sv, sg) {
				t.Fatalf("n=%d trial %d: σ %v (avx2) vs %v (go)", n, trial, sv, sg)
			}
			for k := range n {
				if !sameFloat(rows[0][k], rows[7][k]) {
					t.Fatalf("n=%d trial %d: out[%d] = %v (avx2) vs %v (go)", n, trial, k, rows[0][k], rows[7][k])
				}
			}
		}
	}
}

// sameFloat reports whether a and b have the same bits or are both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// BenchmarkSweep measures the slab kernel on a single node (one slab owning
// the whole grid) in million point-updates per second, at the sizes of the
// reference figures (and n = 256, whose 268 MB of u and u' live in DRAM),
// on 1 and 2 cores, with the Go and the AVX2 row kernel.
func BenchmarkSweep(b *testing.B) {
	saved := kernelRow
	defer func() { kernelRow = saved }()
	for _, k := range rowKernels {
		for _, n := range []int{64, 128, 256} {
			for _, cores := range []int{1, 2} {
				b.Run(fmt.Sprintf("kernel=%s/n=%d/cores=%d", k.name, n, cores), func(b *testing.B) {
					kernelRow = k.fn
					benchSweep(b, n, cores)
				})
			}
		}
	}
}

func benchSweep(b *testing.B, n, cores int) {
	s, err := NewSlab(Problem{N: n}, Range{Lo: 0, Hi: n}, cores)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.Sweep()
	// Bytes the kernel must move per point: write u' (plus its
	// write-allocate read) and read u once, the planes above and
	// below staying cached; φ is factored and stays in L1.
	b.SetBytes(int64(24 * n * n * n))
	cpu0 := cpuSeconds()
	for b.Loop() {
		s.Sweep()
	}
	reportUpdates(b, n, cpuSeconds()-cpu0)
}

// BenchmarkSerialSweep measures the plain reference loop, the spec of the
// kernel, so the speed-up of the kernel is visible in the same run.
func BenchmarkSerialSweep(b *testing.B) {
	n := 64
	p := Problem{N: n}
	u := InitialGuess(p)
	next := make([]float64, len(u))
	cpu0 := cpuSeconds()
	for b.Loop() {
		SerialSweep(p, u, next)
		u, next = next, u
	}
	reportUpdates(b, n, cpuSeconds()-cpu0)
}

// reportUpdates reports the throughput in million point-updates per second
// of wall time and per second of CPU time (user+system of the process, all
// threads). On a shared, noisy machine the CPU-time figure is the stabler
// one: it does not count time this process spent waiting for a core.
func reportUpdates(b *testing.B, n int, cpu float64) {
	updates := float64(b.N) * float64(n*n*n)
	b.ReportMetric(updates/b.Elapsed().Seconds()/1e6, "Mupdates/s")
	if cpu > 0 {
		b.ReportMetric(updates/cpu/1e6, "Mupdates/cpu-s")
	}
}

// cpuSeconds returns the CPU time the process has used so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkMemoryCopy is the memory-bandwidth baseline: copy of a buffer far
// larger than the caches (the n = 128 grid, 16 MiB, is under L3 = 35 MiB on
// the test machine, so use 64 MiB). b.SetBytes counts read + write.
func BenchmarkMemoryCopy(b *testing.B) {
	for _, mib := range []int{2, 64} {
		b.Run(fmt.Sprintf("size=%dMiB", mib), func(b *testing.B) {
			src := make([]float64, mib<<20/8)
			dst := make([]float64, len(src))
			for i := range src {
				src[i] = float64(i)
			}
			b.SetBytes(int64(2 * 8 * len(src)))
			cpu0 := cpuSeconds()
			for b.Loop() {
				copy(dst, src)
			}
			b.ReportMetric(float64(b.N)*float64(16*len(src))/(cpuSeconds()-cpu0)/1e6, "MB/cpu-s")
		})
	}
}

// BenchmarkMemoryScale is a second bandwidth baseline with the kernel's
// access pattern: one 64 MiB stream read, one written through the cache
// (write-allocate), dst[i] = 1.5·src[i]. SetBytes counts 24 bytes per
// element, the same accounting as BenchmarkSweep.
func BenchmarkMemoryScale(b *testing.B) {
	src := make([]float64, 64<<20/8)
	dst := make([]float64, len(src))
	for i := range src {
		src[i] = float64(i)
	}
	b.SetBytes(int64(24 * len(src)))
	cpu0 := cpuSeconds()
	for b.Loop() {
		scaleRow(dst, src)
	}
	b.ReportMetric(float64(b.N)*float64(24*len(src))/(cpuSeconds()-cpu0)/1e6, "MB/cpu-s")
}

func scaleRow(dst, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = 1.5 * v
	}
}

// BenchmarkDivideBound is the compute baseline: a loop over an L1-resident
// row doing only what no kernel of the pinned arithmetic can avoid, one
// load, one add, one division by 6.0 and one store per point. Its rate is
// the division-throughput ceiling for the kernel on this CPU.
func BenchmarkDivideBound(b *testing.B) {
	const n = 256
	src, dst := make([]float64, n), make([]float64, n)
	for i := range src {
		src[i] = float64(i)
	}
	cpu0 := cpuSeconds()
	for b.Loop() {
		divideRow(dst, src, -1e-3)
	}
	updates := float64(b.N) * n
	b.ReportMetric(updates/b.Elapsed().Seconds()/1e6, "Mupdates/s")
	b.ReportMetric(updates/(cpuSeconds()-cpu0)/1e6, "Mupdates/cpu-s")
}

func divideRow(dst, src []float64, c float64) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] = (v + c) / 6.0
	}
}

// BenchmarkSlabMemory measures what a single-node n = 256 slab holds after
// construction and three sweeps, against the 3·n³·8 bytes of u, u' and φ
// (the budget is 1.2×; φ is held factored, so ≈ 0.67 is expected).
func BenchmarkSlabMemory(b *testing.B) {
	const n = 256
	needed := float64(3 * n * n * n * 8)
	for b.Loop() {
		held := slabHeapBytes(b, n, 3)
		b.ReportMetric(held, "bytes")
		b.ReportMetric(held/needed, "held/needed")
	}
}

// BenchmarkKernelRow measures each row kernel on one L1-resident row of 256
// points: the compute ceiling of the kernel, without cache or memory
// traffic.
func BenchmarkKernelRow(b *testing.B) {
	const n = 256
	p := Problem{N: n}
	h := p.H()
	// One buffer, rows 2368 bytes apart: no two rows at the same address
	// modulo 4 KiB, which would make stores and later loads falsely
	// dependent (4K aliasing) and measure that instead of the kernel.
	const stride = n + 40
	buf := make([]float64, 6*stride)
	rows := make([][]float64, 6)
	for i := range rows {
		rows[i] = buf[i*stride : i*stride+n]
		for k := range rows[i] {
			rows[i][k] = -0.1 - 0.01*float64(i) - 1e-4*float64(k)
		}
	}
	phiZs := make([]float64, n)
	for k := range phiZs {
		phiZs[k] = phiZ(h, k)
	}
	for _, k := range rowKernels {
		b.Run("kernel="+k.name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				k.fn(rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], phiZs, phiRow(h, 100, 100), p.hhf())
			}
			updates := float64(b.N) * n
			b.ReportMetric(updates/b.Elapsed().Seconds()/1e6, "Mupdates/s")
			b.ReportMetric(updates/(cpuSeconds()-cpu0)/1e6, "Mupdates/cpu-s")
		})
	}
}
