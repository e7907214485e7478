package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestRunPredicted: a run whose problem has a traced synchronous run in the
// store before it reports the prediction beside its measured time; the
// first run, with nothing to rest on, reports none.
func TestRunPredicted(t *testing.T) {
	inv := loadInventory(t, "")
	store := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "16", "eps": "1e-6"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 2}, Cores: 1}
	first, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	if first.Predicted != nil || first.Unpredicted != "" {
		t.Errorf("first run predicted %+v (%q) from an empty store", first.Predicted, first.Unpredicted)
	}
	spec.Nodes.Any = 3
	second, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	p := second.Predicted
	if p == nil || p.Sources != 1 || p.Seconds <= 0 || p.MeanIterations != float64(first.Nodes[0].Iterations) {
		t.Fatalf("second run predicted %+v, first run's iterations %d", p, first.Nodes[0].Iterations)
	}
	var text strings.Builder
	if err := second.WriteText(&text); err != nil || !strings.Contains(text.String(), "predicted: ") ||
		!strings.Contains(text.String(), "(from 1 traced runs); measured ") {
		t.Errorf("report: %v\n%s", err, text.String())
	}
	// The first asynchronous run of a traced problem says why it has no
	// prediction.
	spec.Scheme = jobs.Asynchronous
	third, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	if err := third.WriteText(&text); err != nil || third.Predicted != nil ||
		!strings.Contains(text.String(), "predicted: nothing: no asynchronous or hybrid run of this problem was traced before") {
		t.Errorf("first asynchronous run: %v, %+v\n%s", err, third.Predicted, text.String())
	}
}
