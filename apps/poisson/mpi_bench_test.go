package poisson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mpiShared are the mpirun options of a user on a shared node (the
// benchmark's default): --oversubscribe, no binding to cores that other
// users' processes share, and ranks that yield the CPU while they poll for
// a message instead of spinning through their time slice. Open MPI's own
// default (bound, busy-polling) is what GRIDTUI_BENCH_MPI_ARGS="" measures.
var mpiShared = []string{"--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"}

// peerFlags are the C compiler flags of both C peers (the MPI program and
// examples/c-poisson): the same code generation for the same loop.
var peerFlags = []string{"-O3", "-march=native", "-std=c99", "-ffp-contract=off", "-D_GNU_SOURCE"}

// BenchmarkTimeToSolutionVsMPI is the time-to-solution comparison:
// the pinned problem at n = 64, ε = 1e-8 on 2 workers, synchronous, one core
// each, whole commands timed:
//
//   - mpi: testdata/poisson_mpi.c (slabs, MPI_Sendrecv halos, MPI_Allreduce
//     of σ) under `mpirun -np 2` with mpiShared's options;
//   - gridtui: `gridtui run --app poisson` on the local grid (built from
//     ./cmd/gridtui), the command a user types;
//   - c: examples/c-poisson (the MPI program's loop, halos through GRID_*)
//     under `gridtui run --app exec`, the default window link.
//
// The three run by turns (each round starts with the next one), rounds
// times (GRIDTUI_BENCH_ROUNDS, default 5): on a shared machine only the
// ratios of runs made in the same minutes count, so the benchmark reports
// the median over rounds of each round's ratio to mpi, each command's best
// and median wall time, its median CPU time (user + system of the process
// and its children: the part of a run the load does not inflate), the load
// average before and after, and where gridtui's time goes (rank 0's
// compute, send and wait). It skips, and says so, without mpicc and mpirun
// (Debian: openmpi-bin, libopenmpi-dev). Run with -benchtime 1x under the
// benchmark lock.
func BenchmarkTimeToSolutionVsMPI(b *testing.B) {
	mpicc, err1 := exec.LookPath("mpicc")
	mpirun, err2 := exec.LookPath("mpirun")
	if err1 != nil || err2 != nil {
		b.Skip("poisson: mpicc or mpirun not found: the C + Open MPI peer is not measured (apt-get install openmpi-bin libopenmpi-dev)")
	}
	dir := b.TempDir()
	peer, cprog, grid := filepath.Join(dir, "poisson_mpi"), filepath.Join(dir, "c-poisson"), filepath.Join(dir, "gridtui")
	build(b, mpicc, append(peerFlags, "-o", peer, filepath.Join("testdata", "poisson_mpi.c"), "-lm")...)
	build(b, "gcc", append(peerFlags, "-I../exec/gridhpc", "-o", cprog,
		"../../examples/c-poisson/poisson.c", "../exec/gridhpc/gridhpc.c")...)
	build(b, "go", "build", "-o", grid, "../../cmd/gridtui")
	mpiArgs := append([]string{"-np", "2"}, mpiShared...)
	if s, ok := os.LookupEnv("GRIDTUI_BENCH_MPI_ARGS"); ok {
		mpiArgs = append([]string{"-np", "2"}, strings.Fields(s)...)
	}
	if os.Geteuid() == 0 {
		mpiArgs = append(mpiArgs, "--allow-run-as-root")
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("GRIDTUI_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	common := []string{"run", "--json", "--no-record", "--scheme", "sync", "--nodes", "2", "--cores", "1"}
	cmds := []contender{
		{name: "mpi", prog: mpirun, args: append(mpiArgs, peer, "64", "1e-8")},
		{name: "gridtui", prog: grid, args: append(slices.Clone(common), "--app", "poisson",
			"--param", "n=64", "--param", "eps=1e-8", "--param", "blocks=2x1x1")},
		{name: "c", prog: grid, args: append(slices.Clone(common), "--app", "exec", "--param", "program="+cprog,
			"--param", "args=64", "--param", "items=64", "--param", "unit=4096", "--param", "eps=1e-8")},
	}
	for b.Loop() {
		load0 := loadAverage()
		times := make([][]timing, len(cmds))
		for r := range rounds {
			for i := range cmds {
				c := &cmds[(r+i)%len(cmds)]
				t := c.time(b, dir)
				times[(r+i)%len(cmds)] = append(times[(r+i)%len(cmds)], t)
				b.Logf("round %d %-7s wall %6.2f s cpu %6.2f s %s", r+1, c.name, t.wall, t.cpu, t.where)
			}
		}
		b.ReportMetric(load0, "load-before")
		b.ReportMetric(loadAverage(), "load-after")
		for i, c := range cmds {
			ts := times[i]
			b.ReportMetric(slices.MinFunc(ts, byWall).wall, c.name+"-best-s")
			b.ReportMetric(median(ts, func(t timing) float64 { return t.wall }), c.name+"-median-s")
			b.ReportMetric(median(ts, func(t timing) float64 { return t.cpu }), c.name+"-cpu-s")
			if i > 0 {
				ratio := func(r int) float64 { return ts[r].wall / times[0][r].wall }
				b.ReportMetric(medianOf(rounds, ratio), c.name+"/mpi")
			}
		}
		if ts := times[1]; len(ts) > 0 && ts[0].rep.Nodes != nil {
			n := slices.MinFunc(ts, byWall).rep.Nodes[0]
			b.ReportMetric(n.Compute, "rank0-compute-s")
			b.ReportMetric(n.Send, "rank0-send-s")
			b.ReportMetric(n.Wait, "rank0-wait-s")
		}
	}
}

// contender is one command of the comparison.
type contender struct {
	name string
	prog string
	args []string
}

// timing is one run of a contender.
type timing struct {
	wall, cpu float64    // seconds
	rep       gridReport // gridtui's report (zero for mpi)
	where     string     // rank 0's compute/send/wait, or the peer's own line
}

func byWall(a, b timing) int {
	switch {
	case a.wall < b.wall:
		return -1
	case a.wall > b.wall:
		return 1
	}
	return 0
}

// time runs the contender once and checks its answer: 6508 iterations
// (mpi's loop stops at the first σ < ε) or gridtui's report of 6510 (the
// tokens' delay of 2 on a chain of 2).
func (c contender) time(b *testing.B, dir string) timing {
	t0 := time.Now()
	out, st := run(b, dir, c.prog, c.args...)
	t := timing{wall: time.Since(t0).Seconds(), cpu: (st.UserTime() + st.SystemTime()).Seconds()}
	if c.name == "mpi" {
		if !strings.HasPrefix(out, "iterations 6508 ") {
			b.Fatalf("poisson: %s: unexpected output %q", c.prog, out)
		}
		t.where = strings.TrimSpace(out)
		return t
	}
	t.rep = parseReport(b, out)
	if len(t.rep.Nodes) == 0 || t.rep.Nodes[0].Iterations != 6510 {
		b.Fatalf("poisson: %s: report %+v, want 6510 iterations", c.name, t.rep)
	}
	n := t.rep.Nodes[0]
	t.where = fmt.Sprintf("report %.2f s, rank 0: compute %.2f s send %.2f s wait %.2f s", t.rep.Wall, n.Compute, n.Send, n.Wait)
	return t
}

// median is the median of f over ts.
func median(ts []timing, f func(timing) float64) float64 {
	return medianOf(len(ts), func(i int) float64 { return f(ts[i]) })
}

// medianOf is the median of f(0), …, f(n−1).
func medianOf(n int, f func(int) float64) float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	slices.Sort(v)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// loadAverage is the machine's one-minute load average (0 if unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f
}

// gridReport is the part of gridtui's JSON report the benchmark reads.
type gridReport struct {
	Outcome string  `json:"outcome"`
	Wall    float64 `json:"wall_seconds"`
	Nodes   []struct {
		Iterations int     `json:"iterations"`
		Compute    float64 `json:"compute_seconds"`
		Send       float64 `json:"send_seconds"`
		Wait       float64 `json:"wait_seconds"`
	} `json:"nodes"`
}

// parseReport finds the report event in gridtui run --json's output.
func parseReport(b *testing.B, out string) gridReport {
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "report" {
			var r gridReport
			if err := json.Unmarshal(ev.Data, &r); err != nil || r.Outcome != "ok" {
				b.Fatalf("poisson: gridtui report: %v (outcome %q)", err, r.Outcome)
			}
			return r
		}
	}
	b.Fatalf("poisson: no report in gridtui's output")
	return gridReport{}
}

// build runs a build command, failing the benchmark with its output.
func build(b *testing.B, name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("poisson: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// run runs a command in dir (its home too, so no user configuration is
// read) and returns its standard output and its exit state (its CPU times
// and its children's).
func run(b *testing.B, dir, name string, args ...string) (string, *os.ProcessState) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "GRIDTUI_SITES=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("poisson: %s: %v\n%s", name, err, lastLines(stderr.String()))
	}
	return stdout.String(), cmd.ProcessState
}

func lastLines(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return fmt.Sprint(s)
}
