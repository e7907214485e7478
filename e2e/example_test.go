//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// rodBin is the example application's binary (examples/rod, a module of
// its own built on gridtui), built once with go build.
var rodBin struct {
	once sync.Once
	path string
	err  error
}

// rodBinary builds examples/rod as its user would, static as deploy wants.
func rodBinary(t *testing.T) string {
	t.Helper()
	rodBin.once.Do(func() {
		gridtuiBinary(t) // creates bin.dir, removed by TestMain
		rodBin.path = filepath.Join(bin.dir, "rod")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", rodBin.path, ".")
		cmd.Dir = filepath.Join("..", "examples", "rod")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			rodBin.err = fmt.Errorf("go build in examples/rod: %w\n%s", err, out)
		}
	})
	if rodBin.err != nil {
		t.Fatal(rodBin.err)
	}
	return rodBin.path
}

// TestExampleRod deploys the example application's own binary to SSH hosts
// of both clusters and runs it headless there: every host runs the rod
// binary as its worker (gridtui's would not know the application), a
// synchronous run across the clusters equals the example's serial reference
// bit for bit, an asynchronous one converges below ε, and nothing is left
// on any host afterwards.
func TestExampleRod(t *testing.T) {
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	rod := rodBinary(t)
	if r := runProgram(t, g, rod, g.SitesFile, deployTimeout, "deploy"); r.code != 0 {
		t.Fatalf("rod deploy: exit %d:\n%s", r.code, r.out)
	}
	t.Cleanup(func() {
		runProgram(t, g, rod, g.SitesFile, deployTimeout, "deploy", "--stop", "--clean")
		checkClean(t, g)
	})
	want := fileSum(rod)
	for _, h := range g.Hosts {
		if got := fileSum(remoteBinary(h)); got != want {
			t.Errorf("%s: the deployed worker has sha256 %s, want the rod binary's %s", h.Name, got, want)
		}
	}
	const iters = 400
	t.Run("sync", func(t *testing.T) {
		out := startRunOf(t, g, rod, 3*time.Minute, "--app", "rod", "--nodes", "4", "--scheme", "sync",
			"--param", "n=40", "--param", fmt.Sprintf("iters=%d", iters), "--wall-time", "2m").wait(t)
		rep := out.report
		if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || !rep.FiguresOK {
			t.Fatalf("sync run: exit %d, report %+v", out.code, rep)
		}
		checkRunRoutes(t, g, rep.Routes)
		name, found := fmt.Sprintf("max |u − serial reference| after %d iterations", iters), false
		for _, f := range rep.Figures {
			if f.Name == name {
				found = f.Value == 0
			}
		}
		if !found {
			t.Errorf("the report has no figure %q = 0: %+v", name, rep.Figures)
		}
	})
	t.Run("async", func(t *testing.T) {
		out := startRunOf(t, g, rod, 3*time.Minute, "--app", "rod", "--nodes", "4", "--scheme", "async",
			"--param", "n=32", "--param", "eps=1e-10", "--wall-time", "2m").wait(t)
		rep := out.report
		if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.FiguresOK || !(rep.Residual < 1e-10) {
			t.Fatalf("async run: exit %d, report %+v", out.code, rep)
		}
	})
}
