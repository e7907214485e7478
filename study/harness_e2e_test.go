//go:build e2e

package study_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/e2e"
	"github.com/gridtui/gridtui/study"
)

// tinyHarnessMatrix is a bounded study for the harness: n = 24, 2 and 4
// nodes across both clusters, sync and async, plus the single-node run.
const tinyHarnessMatrix = `name = "tiny"
sizes = [24]
eps = 1e-5
schemes = ["sync", "async"]
nodes = [2, 4]
single_repeats = 1
wall_time = "90s"

[[grid]]
clusters = ["alpha", "beta"]
`

// TestHarnessStudy builds a 2+2 grid of namespaced hosts with the
// inter-cluster link limited by tbf, deploys the real binary and runs
// `gridtui bench study` in the console namespace; it checks the tables,
// the plot files and that every run was recorded.
func TestHarnessStudy(t *testing.T) {
	if err := e2e.Supported(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	g, err := e2e.Up(ctx, e2e.Config{HostsA: 2, HostsB: 2, LimitWAN: "100mbit", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Down(); err != nil {
			t.Error(err)
		}
	})
	bin := filepath.Join(g.ConsoleHome, "gridtui")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/gridtui")
	build.Dir, build.Env = "..", append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	matrix := filepath.Join(g.ConsoleHome, "tiny.toml")
	if err := os.WriteFile(matrix, []byte(tinyHarnessMatrix), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, args ...string) string {
		t.Helper()
		cmd := g.ConsoleCommand(ctx, append([]string{bin, "--sites", g.SitesFile}, args...)...)
		out, err := cmd.CombinedOutput()
		t.Logf("gridtui %s:\n%s", strings.Join(args, " "), out)
		if err != nil {
			t.Fatalf("gridtui %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	run(ctx, "deploy")
	t.Cleanup(func() { // after ctx is cancelled: a context of its own
		cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer ccancel()
		run(cctx, "deploy", "--stop", "--clean")
	})
	outDir, store := filepath.Join(g.ConsoleHome, "out"), filepath.Join(g.ConsoleHome, "store")
	out := run(ctx, "bench", "study", "--matrix", matrix, "--out", outDir, "--data-dir", store)
	for _, want := range []string{"[5/5]", "Computing gain C_g", "paper's ordering", "5 runs in"} {
		if !strings.Contains(out, want) {
			t.Errorf("study output lacks %q", want)
		}
	}
	if strings.Contains(out, "failed:") {
		t.Errorf("a run failed")
	}
	for _, f := range []string{"tableIII-n24.csv", "tableIV-n24.md", "gain-n24.svg", "gain-n24.png", "runs.csv", "summary.md"} {
		if st, err := os.Stat(filepath.Join(outDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, errors.Join(err, errors.New("missing or empty")))
		}
	}
	csv, err := os.ReadFile(filepath.Join(outDir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Runs across the clusters moved bytes over Ethernet (the WAN link).
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	n := 0
	for _, l := range lines {
		if strings.Contains(l, "ethernet=") {
			n++
		}
	}
	if len(lines) != 6 || n != 4 {
		t.Errorf("runs.csv has %d lines, %d with Ethernet traffic; want a header, 5 runs, 4 multi-node runs with Ethernet traffic:\n%s", len(lines), n, csv)
	}
	if _, err := study.LoadMatrix(matrix); err != nil {
		t.Error(err)
	}
}
