package jobs

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSweep measures the slab kernel on a single node (one slab owning
// the whole grid) in million point-updates per second, at the sizes of the
// reference figures, on 1 and 2 cores.
func BenchmarkSweep(b *testing.B) {
	for _, n := range []int{64, 128} {
		for _, cores := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/cores=%d", n, cores), func(b *testing.B) {
				s, err := NewSlab(Obstacle{N: n}, Range{0, n}, cores)
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
			})
		}
	}
}

// BenchmarkSerialSweep measures the plain reference loop, the spec of the
// kernel, so the speed-up of the kernel is visible in the same run.
func BenchmarkSerialSweep(b *testing.B) {
	n := 64
	p := Obstacle{N: n}
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
