//go:build e2e

package study_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/e2e"
)

// TestHarnessPredict is issue 19's validation on the multi-host harness,
// the inter-cluster link at 100 Mbit/s: the study testdata/study/predict.toml
// (n = 48 and 64 on 2, 4, 8 and 16 nodes, every scheme, five times), then
// `gridtui bench predict --max-trace-nodes 4`: the 8- and 16-node runs
// predicted from the 2- and 4-node ones must be within 15 % of their median
// measured time in at least 80 % of the cases, and rank the schemes in the
// measured order in at least 80 % of the problems and node counts. Long
// (the study alone took 5½ minutes in pass 15, on an idle 2-core machine;
// with the grid and the build about 8) and sensitive to the
// machine's load: opt-in with GRIDTUI_LONG_TESTS=1. scripts/predict-validate.sh
// does the same at 100 and 10 Mbit/s and keeps the stores.
func TestHarnessPredict(t *testing.T) {
	if os.Getenv("GRIDTUI_LONG_TESTS") != "1" {
		t.Skip("set GRIDTUI_LONG_TESTS=1 to validate predict on the harness (about 8 minutes)")
	}
	if err := e2e.Supported(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	g, err := e2e.Up(ctx, e2e.Config{HostsA: 8, HostsB: 8, LimitWAN: "100mbit", Logf: t.Logf})
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
	run := func(ctx context.Context, args ...string) string {
		t.Helper()
		cmd := g.ConsoleCommand(ctx, append([]string{bin, "--sites", g.SitesFile}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gridtui %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(ctx, "deploy")
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer ccancel()
		run(cctx, "deploy", "--stop", "--clean")
	})
	store := filepath.Join(g.ConsoleHome, "store")
	matrix, err := filepath.Abs("../testdata/study/predict.toml")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(run(ctx, "bench", "study", "--matrix", matrix, "--data-dir", store))
	args := []string{"bench", "predict", "--data-dir", store, "--max-trace-nodes", "4", "--shared-cores", strconv.Itoa(runtime.NumCPU())}
	t.Log(run(ctx, args...))
	var v struct {
		Cases    []json.RawMessage `json:"cases"`
		Rankings []json.RawMessage `json:"rankings"`
		Within   int               `json:"within"`
		Ranked   int               `json:"ranked"`
	}
	if err := json.Unmarshal([]byte(run(ctx, append(args, "--json")...)), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 12 || len(v.Rankings) != 4 {
		t.Fatalf("%d cases and %d rankings, want 12 (n = 48, 64 × 8, 16 nodes × 3 schemes) and 4", len(v.Cases), len(v.Rankings))
	}
	if 5*v.Within < 4*len(v.Cases) || 5*v.Ranked < 4*len(v.Rankings) {
		t.Errorf("within 15 %%: %d of %d cases, ranked right: %d of %d; want at least 80 %% of each", v.Within, len(v.Cases), v.Ranked, len(v.Rankings))
	}
}
