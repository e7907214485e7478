package bsp_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/internal/rmnpbench"
)

// The benchmarks below run only with GRIDTUI_BSP_BENCH=1 (they take
// minutes and want a quiet machine; run them under
// flock /tmp/gridtui-bench.lock): each prints same-run ratios against its
// baseline, measured in the same test.

func benchEnabled(t *testing.T) {
	if os.Getenv("GRIDTUI_BSP_BENCH") == "" {
		t.Skip("GRIDTUI_BSP_BENCH is not set: the BSP benchmarks are not run")
	}
}

// programValue reads "name value" from the output of process 0.
func programValue(t *testing.T, rep *engine.Report, name string) float64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(allOutput(rep)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return v
			}
		}
	}
	t.Fatalf("no %s in the output %q", name, allOutput(rep))
	return 0
}

// mpiBarrier returns MPI_Barrier's mean time on n ranks (mpirun on this
// host), skipping when Open MPI is missing. yield sets
// mpi_yield_when_idle, as a user sets it on a shared node (Open MPI sets it
// itself when the ranks oversubscribe the cores).
func mpiBarrier(t *testing.T, n, iters int, yield bool) float64 {
	t.Helper()
	if _, err := osexec.LookPath("mpicc"); err != nil {
		t.Skip("mpicc is not installed (Debian: apt-get install libopenmpi-dev openmpi-bin): no MPI_Barrier baseline")
	}
	bin := filepath.Join(buildDir, "mpibarrier")
	if _, err := os.Stat(bin); err != nil {
		if out, err := osexec.Command("mpicc", "-O2", filepath.Join(here(), "testdata", "bench", "mpibarrier.c"), "-o", bin).CombinedOutput(); err != nil {
			t.Fatalf("mpicc: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--oversubscribe", "-np", strconv.Itoa(n)}
	if yield {
		args = append(args, "--mca", "mpi_yield_when_idle", "1")
	}
	// The local grid's workers, and so the BSP programs, run nicer than
	// the console (deploy's localWorkerNice, 5): MPI's ranks at the same
	// priority, or a loaded machine favours them.
	args = append([]string{"-n", "5", "mpirun"}, args...)
	cmd := osexec.CommandContext(ctx, "nice", append(args, bin, strconv.Itoa(iters))...)
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "barrier_us "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	t.Fatalf("mpirun printed no barrier_us:\n%s", out)
	return 0
}

// TestBenchEmptySuperstep: an empty superstep (bsp_sync) on 2, 4 and 8
// processes of the local grid, with the processes meeting in shared memory
// (shared = true, the default) and through their workers only (shared =
// false, the path before), against Open MPI's MPI_Barrier on as many ranks
// of this host, spinning (Open MPI's default) and yielding when idle (a
// shared node's setting), alternating, best of three each.
func TestBenchEmptySuperstep(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	procs := []int{2, 4, 8}
	if v, err := strconv.Atoi(os.Getenv("GRIDTUI_BSP_BENCH_PROCS")); err == nil {
		procs = []int{v} // one size only
	}
	for _, n := range procs {
		shm, workers, spin, yield := 1e30, 1e30, 1e30, 1e30
		for range 3 {
			shm = min(shm, benchValue(t, prog, n, "sync 2000", true, "empty_us"))
			yield = min(yield, mpiBarrier(t, n, 2000, true))
			workers = min(workers, benchValue(t, prog, n, "sync 500", false, "empty_us"))
			spin = min(spin, mpiBarrier(t, n, 2000, false))
		}
		fmt.Printf("empty superstep, %d processes: bsp_sync %.2f µs (through the workers %.2f µs); MPI_Barrier yielding %.2f µs, spinning %.2f µs; ratios to yielding %.2f (before %.1f), to spinning %.2f (before %.1f)\n",
			n, shm, workers, yield, spin, shm/yield, workers/yield, shm/spin, workers/spin)
	}
}

// benchValue runs bspbench on n processes and returns process 0's figure.
func benchValue(t *testing.T, prog string, n int, args string, shared bool, name string) float64 {
	t.Helper()
	rep, err := runBSPParams(t, prog, n, map[string]string{"args": args, "shared": strconv.FormatBool(shared)})
	if err != nil {
		t.Fatal(err)
	}
	return programValue(t, rep, name)
}

// TestBenchPut: a 4 MiB bsp_put from process 0 to process 1 (in shared
// memory, and through the workers as before) against RMNP's streaming
// bandwidth of 4 MiB messages over a Unix socket (the network of two
// workers on one host), in the same run.
func TestBenchPut(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	const size = 4 << 20
	args := fmt.Sprintf("put %d 10", size)
	var put, raw, wput, wraw, stream float64
	for range 3 {
		put = max(put, benchValue(t, prog, 2, args, true, "put_MBps"))
		raw = max(raw, benchValue(t, prog, 2, args, true, "put_raw_MBps"))
		wput = max(wput, benchValue(t, prog, 2, args, false, "put_MBps"))
		wraw = max(wraw, benchValue(t, prog, 2, args, false, "put_raw_MBps"))
		p, err := rmnpbench.New(context.Background(), rmnpbench.RMNP, "unix", size, 16)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Measure(context.Background(), 500*time.Millisecond, 2)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		stream = max(stream, r.Bandwidth()/1e6)
	}
	fmt.Printf("4 MiB bsp_put: %.0f MB/s less an empty superstep, %.0f MB/s the whole superstep (through the workers: %.0f, %.0f); RMNP stream of 4 MiB messages (unix): %.0f MB/s; ratios %.2f, %.2f (before %.2f, %.2f)\n",
		put, raw, wput, wraw, stream, put/stream, raw/stream, wput/stream, wraw/stream)
}

// TestBenchGL prints bspbench's r, g and l on 2, 4 and 8 processes.
func TestBenchGL(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	for _, n := range []int{2, 4, 8} {
		rep, err := runBSP(t, prog, n, "glr 64 500")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("p = %d: r %.0f Mflop/s, g %.3f ns/byte (%.1f flop/word), l %.1f µs (%.0f flop)\n", n,
			programValue(t, rep, "r_Mflops"), programValue(t, rep, "g_ns_per_byte"), programValue(t, rep, "g_flops"),
			programValue(t, rep, "l_us"), programValue(t, rep, "l_flops"))
	}
}
