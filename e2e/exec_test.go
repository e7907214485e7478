//go:build e2e

package e2e

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/poisson"
)

// buildC compiles C sources of the repository with gridhpc.c into dir, or
// skips the test when gcc is missing.
func buildC(t *testing.T, dir, name string, sources ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the C examples are not built")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	out := filepath.Join(dir, name)
	args := []string{"-O2", "-std=c99", "-ffp-contract=off", "-D_GNU_SOURCE", "-Iapps/exec/gridhpc", "-o", out}
	cmd := exec.Command("gcc", append(append(args, sources...), "apps/exec/gridhpc/gridhpc.c")...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// buildInproc builds libgridhpc_inproc.so (link = "inprocess") into dir
// beside the programs, where the workers look for it by default.
func buildInproc(t *testing.T, dir string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(dir, "libgridhpc_inproc.so")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./cmd/libgridhpc-inproc")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, b)
	}
	return out
}

// programDir makes a directory for the programs a test builds, removed
// after it: the hosts' workers run as another user, so it must be
// readable and executable by all.
func programDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gridtui-e2e-exec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunExec runs examples/c-poisson (app = "exec") over SSH across both
// clusters: synchronously it computes the serial values (their sum, after
// as many iterations), asynchronously it ends below ε, and a program that
// crashes on one host fails the run naming that node and the program;
// with link = "inprocess" too (the programs linked to each other over the
// hosts' networks).
func TestRunExec(t *testing.T) {
	dir := programDir(t)
	prog := buildC(t, dir, "poisson", "examples/c-poisson/poisson.c")
	faulty := buildC(t, dir, "faulty", "apps/exec/testdata/faulty.c")
	g := newGridT(t, Config{})
	deployOrSkip(t, g)
	const n = 24
	args := []string{"--app", "exec", "--nodes", "4", "--param", "program=" + prog, "--param", "args=" + strconv.Itoa(n),
		"--param", "items=" + strconv.Itoa(n), "--param", "unit=" + strconv.Itoa(n*n), "--param", "eps=1e-8", "--wall-time", "2m"}
	buildInproc(t, dir)
	for _, tc := range []struct{ scheme, link string }{{"sync", "window"}, {"async", "window"}, {"hybrid", "window"},
		{"sync", "inprocess"}, {"async", "inprocess"}} {
		scheme := tc.scheme
		t.Run(tc.link+"/"+scheme, func(t *testing.T) {
			out := runJob(t, g, append(args, "--scheme", scheme, "--param", "link="+tc.link)...)
			rep := out.report
			if out.code != 0 || rep == nil || rep.Outcome != "ok" {
				t.Fatalf("%s run: exit %d, report %+v", scheme, out.code, rep)
			}
			sum, residual := rep.figure("sum of the values"), rep.Residual // the σ the programs reported
			if !(residual < 1e-8) {
				t.Errorf("residual %g, want < 1e-8", residual)
			}
			if scheme != "sync" {
				return
			}
			it := rep.Nodes[0].Iterations
			u, _, _ := poisson.SerialSolve(poisson.Problem{N: n, Eps: math.SmallestNonzeroFloat64, MaxIter: it})
			want := 0.0
			for _, x := range u {
				want += x
			}
			if sum != want {
				t.Errorf("sum %.17g after %d iterations, the serial loop's %.17g", sum, it, want)
			}
		})
	}
	for _, link := range []string{"window", "inprocess"} {
		t.Run(link+"/crash", func(t *testing.T) {
			out := runJob(t, g, "--app", "exec", "--nodes", "4", "--scheme", "sync", "--param", "program="+faulty,
				"--param", "args=crash 2 5 /dev/null", "--param", "items=8", "--param", "eps=1e-30", "--wall-time", "2m", "--param", "link="+link)
			rep := out.report
			if out.code == 0 || rep == nil || rep.FailedNode == "" {
				t.Fatalf("exit %d, report %+v: want a failed run", out.code, rep)
			}
			want := "program " + faulty + " on rank 2: crashed (signal: segmentation fault)"
			if !strings.Contains(rep.Cause, want) && !strings.Contains(out.raw, want) {
				t.Errorf("cause %q, want it to name node and program: %q", rep.Cause, want)
			}
		})
	}
}
