package engine

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/exec" // programs over gridhpc.h
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversExec: a C program over gridhpc.h that registers its state
// with GRID_CheckpointRegister (apps/exec/testdata/ckchain.c: two arrays
// it swaps and a counter of its own), one of whose workers is killed
// mid-run in a synchronous run, ends at its iteration limit bit for bit the undisturbed run:
// the same values and the same count of iterations (its last value).
func TestRunRecoversExec(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler: the program is not built")
	}
	prog := filepath.Join(t.TempDir(), "ckchain")
	src := filepath.Join("..", "apps", "exec")
	if out, err := exec.Command("gcc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-D_GNU_SOURCE",
		"-I"+filepath.Join(src, "gridhpc"), filepath.Join(src, "testdata", "ckchain.c"), filepath.Join(src, "gridhpc", "gridhpc.c"),
		"-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	recoversExec(t, map[string]string{"program": prog}, 8, 3001)
}

// TestRunRecoversExecPython: testdata/ckchain.py, ckchain.c in Python
// (the binding's checkpoint_register and resumed), recovers from a killed
// worker as TestRunRecoversExec: bit for bit the undisturbed run.
func TestRunRecoversExecPython(t *testing.T) {
	py := pythonNumPy(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler: libgridhpc.so is not built")
	}
	src := filepath.Join("..", "apps", "exec")
	lib := filepath.Join(t.TempDir(), "libgridhpc.so")
	if out, err := exec.Command("gcc", "-O2", "-shared", "-fPIC", "-D_GNU_SOURCE", filepath.Join(src, "gridhpc", "gridhpc.c"), "-o", lib).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GRIDHPC_LIB", lib)
	t.Setenv("PYTHONPATH", filepath.Join(abs, "gridhpc"))
	recoversExec(t, map[string]string{"program": py, "args": filepath.Join(abs, "testdata", "ckchain.py")}, 4, 1001)
}

// TestRunRecoversExecFortran: testdata/ckchain.f90, ckchain.c in Fortran
// (the binding's grid_checkpoint_register and grid_resumed), recovers from
// a killed worker as TestRunRecoversExec: bit for bit the undisturbed run.
func TestRunRecoversExecFortran(t *testing.T) {
	for _, tool := range []string{"gcc", "gfortran"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: the program is not built", tool)
		}
	}
	dir := t.TempDir()
	src, prog := filepath.Join("..", "apps", "exec"), filepath.Join(dir, "ckchain")
	for _, cmd := range [][]string{
		{"gcc", "-O2", "-c", "-D_GNU_SOURCE", filepath.Join(src, "gridhpc", "gridhpc.c"), "-o", filepath.Join(dir, "gridhpc.o")},
		{"gfortran", "-O2", "-ffp-contract=off", "-J", dir, filepath.Join(src, "gridhpc", "gridhpc.f90"), filepath.Join(src, "testdata", "ckchain.f90"),
			filepath.Join(dir, "gridhpc.o"), "-o", prog},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd[0], err, out)
		}
	}
	recoversExec(t, map[string]string{"program": prog}, 4, 3001)
}

// pythonNumPy returns a python3 that imports NumPy (the distribution's
// first: python3-numpy, which .ci/run installs), or skips the test.
func pythonNumPy(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with NumPy (Debian: apt-get install python3-numpy): the Python program is not run")
	return ""
}

// recoversExec runs ckchain (params: its program and args) on nodes local
// nodes, synchronously, undisturbed and with alpha-3 killed, and checks the
// second run rolled back to ckEvery (odd) and ended bit for bit the first:
// the same values, iterations per node and the program's own count. The
// kill waits for a snapshot that shows every node past ckEvery+99 (at most
// 10 a second): a fast program needs a large ckEvery for one to come
// before the run's end.
func recoversExec(t *testing.T, params map[string]string, nodes, ckEvery int) {
	t.Helper()
	// One checkpoint only (ckEvery·2 > iters), at an odd iteration, the
	// kill 99 iterations after it (its copy reported by then): whenever
	// the loss is detected, the run rolls back to ckEvery, and the
	// restarted program must swap its arrays back by the parity
	// GRID_Resumed gives (ckchain.c), else the values differ.
	iters := 2*ckEvery - 200
	params["items"], params["eps"], params["timeout"] = "64", "1e-30", "60"
	spec := jobs.Spec{Name: "ckchain", App: "exec", Params: params,
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: nodes}, Cores: 1, MaxIter: iters, WallTime: 3 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: ckEvery}}
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := figure(want, "sum of the values"); got == "" || want.Outcome != "not converged" {
		t.Fatalf("undisturbed run: outcome %q (want the iteration limit's), sum %q", want.Outcome, got)
	}
	rep, _, err := runKilled(t, spec, "alpha-3", ckEvery+99)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != want.Outcome || moved(rep.Recoveries) != 1 || rep.Recoveries[0].Node != "alpha-3" {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s: rank %d to %s from iteration %d, recovered in %v", rc.Node, rc.Rank, rc.To, rc.From, rc.Took)
	if rc.From != uint64(ckEvery) {
		t.Errorf("recovery %+v: want a rollback to the only checkpoint, iteration %d (odd: the program swaps back)", rc, ckEvery)
	}
	checkSameFigures(t, rep, want)
	for i := range rep.Nodes {
		if rep.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
	if n := len(rep.Solution); n != 64 || rep.Solution[n-1] != float64(iters) {
		t.Errorf("the program counted %v iterations in %d values, want %d in 64", rep.Solution[max(n-1, 0):], n, iters)
	}
}

// TestRunRecoversExecAsync: the same program in an asynchronous run, a
// worker killed mid-run: only the lost part is restored from its copy,
// and the run ends as the undisturbed one does (at its iteration limit).
func TestRunRecoversExecAsync(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler: the program is not built")
	}
	prog := filepath.Join(t.TempDir(), "ckchain")
	src := filepath.Join("..", "apps", "exec")
	if out, err := exec.Command("gcc", "-O2", "-std=c99", "-D_GNU_SOURCE", "-I"+filepath.Join(src, "gridhpc"),
		filepath.Join(src, "testdata", "ckchain.c"), filepath.Join(src, "gridhpc", "gridhpc.c"), "-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	spec := jobs.Spec{Name: "ckchain", App: "exec", Params: map[string]string{"program": prog, "items": "64", "eps": "1e-30", "timeout": "60"},
		Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, MaxIter: 3000, WallTime: 3 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 101}}
	rep, _, err := runKilled(t, spec, "alpha-3", 310)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "not converged" || moved(rep.Recoveries) != 1 || rep.Recoveries[0].Node != "alpha-3" {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s: rank %d to %s from iteration %d, recovered in %v", rc.Node, rc.Rank, rc.To, rc.From, rc.Took)
	if rc.FromStart {
		t.Errorf("recovery %+v: want the lost part restored from a checkpoint, not from the start", rc)
	}
	if n := len(rep.Solution); n != 64 || rep.Solution[n-1] < 3000 {
		t.Errorf("the last rank's program counted %v iterations, want the limit's 3000 at least", rep.Solution[max(n-1, 0):])
	}
}
