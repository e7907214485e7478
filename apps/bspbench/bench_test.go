package bspbench_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/bspbench"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestMain lets the test binary serve as `gridtui worker`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := worker.ServeWorker(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRun runs the Go BSP program through the engine on 3 nodes of the
// local grid (supersteps over RMNP) and checks that it reports r, g and l
// for the whole machine and for a network.
func TestRun(t *testing.T) {
	spec := jobs.Spec{App: "bspbench", Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 3}, Cores: 1,
		Params: map[string]string{"h": "8", "reps": "2", "iters": "2"}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range rep.Figures {
		names[f.Name] = true
		if strings.HasPrefix(f.Name, "g ") && !strings.Contains(f.Text, "ns/byte") {
			t.Errorf("figure %s: %q", f.Name, f.Text)
		}
	}
	if !names["r"] || !names["g all pairs"] || !names["l all pairs"] || len(names) < 5 {
		t.Fatalf("figures %v", rep.Figures)
	}
	if it := rep.Nodes[0].Iterations; it < 2*3*5*3 { // reps × patterns × h values × (1+iters)
		t.Errorf("%d supersteps, want at least %d", it, 2*3*5*3)
	}
	// The processes' supersteps, for prediction: as many as the run did,
	// with h-relations (the puts of every h).
	n, h := 0, int64(0)
	for _, g := range rep.Supersteps {
		n, h = n+g.Supersteps, h+g.H
	}
	if n != rep.Nodes[0].Iterations || h == 0 || len(rep.Supersteps) > 64 {
		t.Errorf("supersteps %d in %d groups, h %d; the run did %d", n, len(rep.Supersteps), h, rep.Nodes[0].Iterations)
	}
}

// TestAsyncRefused: a BSP program under the asynchronous scheme is refused.
func TestAsyncRefused(t *testing.T) {
	spec := jobs.Spec{App: "bspbench", Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 2}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `needs scheme = "sync"`) {
		t.Fatalf("async run: %v", err)
	}
}
