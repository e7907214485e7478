//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// unsupported says why this machine cannot run the suite (nil: it can).
var unsupported error

// TestMain checks the machine once, removes the leftovers of earlier killed
// runs, and tears every grid down on Ctrl-C or SIGTERM (t.Cleanup does not
// run when the test binary is interrupted).
func TestMain(m *testing.M) {
	unsupported = Supported()
	if unsupported != nil {
		fmt.Fprintf(os.Stderr, "e2e: SKIPPING the multi-host suite: %v\n", unsupported)
		os.Exit(m.Run()) // every test skips with the same message
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	removed, err := CleanStale(ctx)
	cancel()
	for _, r := range removed {
		fmt.Fprintf(os.Stderr, "e2e: removed a stale %s\n", r)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cleaning stale grids: %v\n", err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "e2e: %v: tearing down every grid\n", s)
		if err := DownAll(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(130)
	}()
	code := m.Run()
	if err := DownAll(); err != nil { // grids a failed test could not tear down
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if bin.dir != "" {
		os.RemoveAll(bin.dir)
	}
	os.Exit(code)
}

// needGrid skips t, naming the reason, where no grid can be built.
func needGrid(t *testing.T) {
	t.Helper()
	if unsupported != nil {
		t.Skipf("e2e: multi-host suite skipped: %v", unsupported)
	}
}

// newGridT builds a grid of its own for t, torn down (and checked for
// leaks) in t.Cleanup.
func newGridT(t *testing.T, cfg Config) *Grid {
	t.Helper()
	needGrid(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg.Logf = t.Logf
	g, err := Up(ctx, cfg)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() {
		g.cfg.Logf = func(string, ...any) {}
		if err := g.Down(); err != nil {
			t.Errorf("Down: %v", err)
		}
	})
	return g
}

// bin is the gridtui binary under test, built once with go build.
var bin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// gridtuiBinary builds ./cmd/gridtui (the real binary) once per test run.
func gridtuiBinary(t testing.TB) string {
	t.Helper()
	bin.once.Do(func() {
		bin.dir, bin.err = os.MkdirTemp("", "gridtui-e2etest-bin-")
		if bin.err != nil {
			return
		}
		os.Chmod(bin.dir, 0o755)
		bin.path = filepath.Join(bin.dir, "gridtui")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin.path, "./cmd/gridtui")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			bin.err = fmt.Errorf("go build ./cmd/gridtui: %w\n%s", err, out)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return bin.path
}

// result is what one gridtui invocation did.
type result struct {
	out  string // stdout and stderr, interleaved
	code int    // exit code (-1: killed by the context)
}

// gridtui runs the real binary in the console namespace with the given
// inventory, bounded by timeout.
func gridtui(t *testing.T, g *Grid, sites string, timeout time.Duration, args ...string) result {
	t.Helper()
	return runProgram(t, g, gridtuiBinary(t), sites, timeout, args...)
}

// runProgram runs bin, gridtui or a program built on it (examples/), as
// gridtui does.
func runProgram(t *testing.T, g *Grid, bin, sites string, timeout time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append([]string{bin, "--sites", sites}, args...)
	cmd := g.ConsoleCommand(ctx, argv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := result{out: out.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		r.code = -1
		t.Errorf("gridtui %s: still running after %v: %v\n%s", strings.Join(args, " "), timeout, err, r.out)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("gridtui %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("gridtui %s → exit %d\n%s", strings.Join(args, " "), r.code, r.out)
	return r
}

// skipIfNotImplemented skips t when a subcommand says it is not there yet.
func skipIfNotImplemented(t *testing.T, r result, what string) {
	t.Helper()
	if strings.Contains(r.out, "not implemented yet") {
		t.Skipf("e2e: %s is not implemented yet in gridtui (%s)", what, strings.TrimSpace(r.out))
	}
}
