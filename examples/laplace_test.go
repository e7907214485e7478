package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// laplace is the structured-grid example's binary, built once.
var laplace struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildLaplace builds examples/laplace as buildRod builds the rod example.
func buildLaplace(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example: not with -short")
	}
	laplace.once.Do(func() {
		dir, err := os.MkdirTemp("", "gridtui-examples-")
		if err != nil {
			laplace.err = err
			return
		}
		laplace.dir, laplace.path = dir, filepath.Join(dir, "laplace")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", laplace.path, ".")
		cmd.Dir = "laplace"
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			laplace.err = fmt.Errorf("go build in examples/laplace: %w\n%s", err, out)
		}
	})
	if laplace.err != nil {
		t.Fatal(laplace.err)
	}
	return laplace.path
}

// TestLaplaceSize: the structured-grid example stays within 100 lines.
func TestLaplaceSize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("laplace", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > 100 {
		t.Errorf("examples/laplace/main.go has %d lines, want at most 100", n)
	}
}

// TestLaplaceLocalGrid builds the example and runs it on the local grid:
// synchronous on 2×2 tiles, exactly 300 sweeps, it equals its serial loop
// bit for bit; asynchronous on 4 nodes, its true residual is below ε.
func TestLaplaceLocalGrid(t *testing.T) {
	bin := buildLaplace(t)
	t.Run("sync is the serial loop", func(t *testing.T) {
		rep := runApp(t, bin, "laplace", "--scheme", "sync", "--nodes", "4", "--cores", "1",
			"--param", "n=32", "--param", "sweeps=300", "--param", "blocks=2x2")
		if rep.Outcome != "ok" || !rep.Checked || !rep.FiguresOK || len(rep.Figures) != 1 || rep.Figures[0].Value != 0 {
			t.Fatalf("outcome %s, checked %v, figures OK %v: %+v", rep.Outcome, rep.Checked, rep.FiguresOK, rep.Figures)
		}
	})
	// The toolkit says the grid (gridapp.Gridded): --out writes it.
	t.Run("out writes the grid", func(t *testing.T) {
		dir := t.TempDir()
		rep := runApp(t, bin, "laplace", "--scheme", "sync", "--nodes", "2", "--cores", "1", "--param", "n=16", "--out", dir)
		var vti bool
		for _, f := range rep.Outputs {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("output %s: %v", f, err)
			}
			vti = vti || strings.HasSuffix(f, ".vti")
		}
		if rep.Outcome != "ok" || !vti {
			t.Fatalf("outcome %s, outputs %v: want a .vti", rep.Outcome, rep.Outputs)
		}
	})
	t.Run("async below eps", func(t *testing.T) {
		const eps = 1e-8
		rep := runApp(t, bin, "laplace", "--scheme", "async", "--nodes", "4", "--cores", "1",
			"--param", "n=32", "--param", fmt.Sprintf("eps=%g", eps))
		if rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < eps) {
			t.Fatalf("outcome %s, checked %v, true residual %g (ε = %g)", rep.Outcome, rep.Checked, rep.Residual, eps)
		}
	})
}
