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
// host), skipping when Open MPI is missing.
func mpiBarrier(t *testing.T, n, iters int) float64 {
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
	cmd := osexec.CommandContext(ctx, "mpirun", "--oversubscribe", "-np", strconv.Itoa(n), bin, strconv.Itoa(iters))
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
// processes of the local grid against Open MPI's MPI_Barrier on as many
// ranks of this host, alternating, best of three each.
func TestBenchEmptySuperstep(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	for _, n := range []int{2, 4, 8} {
		bspBest, mpiBest := 1e30, 1e30
		for range 3 {
			rep, err := runBSP(t, prog, n, "sync 2000")
			if err != nil {
				t.Fatal(err)
			}
			bspBest = min(bspBest, programValue(t, rep, "empty_us"))
			mpiBest = min(mpiBest, mpiBarrier(t, n, 2000))
		}
		fmt.Printf("empty superstep, %d processes: bsp_sync %.2f µs, MPI_Barrier %.2f µs, ratio %.2f\n", n, bspBest, mpiBest, bspBest/mpiBest)
	}
}

// TestBenchPut: a 4 MiB bsp_put from process 0 to process 1 against
// RMNP's streaming bandwidth of 4 MiB messages over a Unix socket (the
// network of two workers on one host), in the same run.
func TestBenchPut(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	const size = 4 << 20
	putBest, rawBest, rmnpBest := 0.0, 0.0, 0.0
	for range 3 {
		rep, err := runBSP(t, prog, 2, fmt.Sprintf("put %d 10", size))
		if err != nil {
			t.Fatal(err)
		}
		putBest = max(putBest, programValue(t, rep, "put_MBps"))
		rawBest = max(rawBest, programValue(t, rep, "put_raw_MBps"))
		p, err := rmnpbench.New(context.Background(), rmnpbench.RMNP, "unix", size, 16)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Measure(context.Background(), 500*time.Millisecond, 2)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		rmnpBest = max(rmnpBest, r.Bandwidth()/1e6)
	}
	fmt.Printf("4 MiB bsp_put: %.0f MB/s (the superstep less a mean empty one), %.0f MB/s (the whole superstep); RMNP stream of 4 MiB messages (unix): %.0f MB/s; ratios %.2f, %.2f\n",
		putBest, rawBest, rmnpBest, putBest/rmnpBest, rawBest/rmnpBest)
}

// TestBenchGL prints bspbench's r, g and l on 2, 4 and 8 processes.
func TestBenchGL(t *testing.T) {
	benchEnabled(t)
	prog := build(t, filepath.Join(here(), "testdata", "bench", "bspbench.c"))
	for _, n := range []int{2, 4, 8} {
		rep, err := runBSP(t, prog, n, "glr 64 20")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("p = %d: r %.0f Mflop/s, g %.3f ns/byte (%.1f flop/word), l %.1f µs (%.0f flop)\n", n,
			programValue(t, rep, "r_Mflops"), programValue(t, rep, "g_ns_per_byte"), programValue(t, rep, "g_flops"),
			programValue(t, rep, "l_us"), programValue(t, rep, "l_flops"))
	}
}
