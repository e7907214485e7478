package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxLines bounds an example application: it must stay readable in one go.
const maxLines = 150

// TestRodSize fails when the rod example outgrows maxLines lines of Go.
func TestRodSize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("rod", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in rod/ (%v)", err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines > maxLines {
		t.Errorf("the rod example has %d lines of Go, want at most %d", lines, maxLines)
	}
}

// buildRod builds the rod example's module with the go command as a user
// would: its own go.mod and go.sum, nothing fetched (GOPROXY=off: every
// module it needs is one this module already uses), go.mod and go.sum not
// rewritten (-mod=readonly).
// It is built once per test binary, into a directory TestMain removes.
func buildRod(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example: not with -short")
	}
	rod.once.Do(func() {
		dir, err := os.MkdirTemp("", "gridtui-examples-")
		if err != nil {
			rod.err = err
			return
		}
		rod.dir, rod.path = dir, filepath.Join(dir, "rod")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", rod.path, ".")
		cmd.Dir = "rod"
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			rod.err = fmt.Errorf("go build in examples/rod: %w\n%s", err, out)
		}
	})
	if rod.err != nil {
		t.Fatal(rod.err)
	}
	return rod.path
}

// rod is the example's binary, built once.
var rod struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if rod.dir != "" {
		os.RemoveAll(rod.dir)
	}
	if laplace.dir != "" {
		os.RemoveAll(laplace.dir)
	}
	os.Exit(code)
}

// report is the part of `rod run --json`'s report the test reads.
type report struct {
	Outcome  string  `json:"outcome"`
	Checked  bool    `json:"checked"`
	Residual float64 `json:"true_residual"`
	Figures  []struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
	} `json:"figures"`
	FiguresOK bool     `json:"figures_ok"`
	Outputs   []string `json:"outputs"`
	Nodes     []struct {
		Node       string `json:"node"`
		Iterations int    `json:"iterations"`
	} `json:"nodes"`
}

// runRod runs `rod run --json --no-record --app rod args...` on the
// embedded local grid, in a directory and home of its own, and returns its
// report.
func runRod(t *testing.T, bin string, args ...string) *report {
	t.Helper()
	return runApp(t, bin, "rod", args...)
}

// runApp runs `bin run --json --no-record --app app args...` as runRod does.
func runApp(t *testing.T, bin, app string, args ...string) *report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--json", "--no-record", "--app", app}, args...)...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GRIDTUI_SITES=")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s run %s: still running after the timeout\n%s", app, strings.Join(args, " "), tail(out))
	}
	var rep *report
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Event string
			Data  json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "report" {
			rep = new(report)
			if err := json.Unmarshal(ev.Data, rep); err != nil {
				t.Fatalf("report: %v", err)
			}
		}
	}
	if rep == nil || err != nil {
		t.Fatalf("%s run %s: %v, no report or a failure:\n%s", app, strings.Join(args, " "), err, tail(out))
	}
	assertNoRodLeft(t, bin)
	return rep
}

// tail keeps the end of a run's output, where its report and error are.
func tail(out []byte) []byte {
	const keep = 4000
	if len(out) <= keep {
		return out
	}
	return append([]byte("…"), out[len(out)-keep:]...)
}

// assertNoRodLeft fails if a process of the binary (a worker) outlived the
// run.
func assertNoRodLeft(t *testing.T, bin string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		exes, _ := filepath.Glob("/proc/[0-9]*/exe")
		var left []string
		for _, e := range exes {
			if p, err := os.Readlink(e); err == nil && p == bin {
				left = append(left, filepath.Base(filepath.Dir(e)))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of %s are still running after the run", left, bin)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRodLocalGrid builds the example and runs it headless on the local
// grid, where the launcher starts the same binary as each node's worker
// (only it knows the application rod): the synchronous scheme gives the
// serial reference's values bit for bit after the same number of
// iterations, and the asynchronous schemes converge below ε.
func TestRodLocalGrid(t *testing.T) {
	bin := buildRod(t)
	const iters = 500
	t.Run("sync is the serial reference", func(t *testing.T) {
		rep := runRod(t, bin, "--scheme", "sync", "--nodes", "3", "--cores", "1",
			"--param", "n=32", "--param", fmt.Sprintf("iters=%d", iters))
		if rep.Outcome != "ok" || !rep.Checked || !rep.FiguresOK {
			t.Fatalf("outcome %s, checked %v, figures OK %v: %+v", rep.Outcome, rep.Checked, rep.FiguresOK, rep)
		}
		if len(rep.Nodes) != 3 {
			t.Fatalf("%d nodes, want 3", len(rep.Nodes))
		}
		for _, n := range rep.Nodes {
			if n.Iterations < iters || n.Iterations != rep.Nodes[0].Iterations {
				t.Errorf("node %s: %d iterations, rank 0 %d, want equal and ≥ %d", n.Node, n.Iterations, rep.Nodes[0].Iterations, iters)
			}
		}
		want := fmt.Sprintf("max |u − serial reference| after %d iterations", iters)
		found := false
		for _, f := range rep.Figures {
			if f.Name == want {
				found = true
				if f.Value != 0 {
					t.Errorf("%s: %g, want 0 (bit for bit)", want, f.Value)
				}
			}
		}
		if !found {
			t.Errorf("the report lacks the figure %q: %+v", want, rep.Figures)
		}
	})
	for _, c := range []struct{ name, scheme, detector string }{
		{"async activity", "async", "activity"},
		{"async switch", "async", "switch"},
		{"hybrid", "hybrid", "activity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const eps = 1e-10
			rep := runRod(t, bin, "--scheme", c.scheme, "--detector", c.detector, "--nodes", "4", "--cores", "1",
				"--param", "n=32", "--param", fmt.Sprintf("eps=%g", eps))
			if rep.Outcome != "ok" || !rep.Checked || !rep.FiguresOK || !(rep.Residual < eps) {
				t.Fatalf("outcome %s, checked %v, figures OK %v, true residual %g (ε = %g): %+v",
					rep.Outcome, rep.Checked, rep.FiguresOK, rep.Residual, eps, rep)
			}
		})
	}
}
