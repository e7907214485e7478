package engine

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// TestRunPredictedBSP: a BSP program's run keeps its supersteps in its
// record; the next run of the same program on as many nodes is predicted
// by W + h·g + l from them once bench bsp's g and l are in the data
// directory, and says what is missing before.
func TestRunPredictedBSP(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler: the BSPlib program is not built")
	}
	prog := filepath.Join(t.TempDir(), "ring")
	lib := filepath.Join("..", "apps", "bsp", "bsplib")
	if out, err := exec.Command("cc", "-std=c99", "-O2", "-I"+lib, filepath.Join("..", "apps", "bsp", "testdata", "ring.c"),
		filepath.Join(lib, "bsp.c"), "-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	inv := loadInventory(t, "")
	store := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := jobs.Spec{Name: "ring", App: "bsp", Params: map[string]string{"program": prog, "args": "20", "timeout": "60"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 2}, Cores: 1}
	first, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	if first.Predicted != nil || first.Unpredicted != "" {
		t.Errorf("first run predicted %+v (%q) from an empty store", first.Predicted, first.Unpredicted)
	}
	res, err := jobs.Load(store)
	if err != nil || len(res.Records) != 1 {
		t.Fatalf("store: %v, %d records", err, len(res.Records))
	}
	n := 0
	for _, g := range res.Records[0].Supersteps {
		n += g.Supersteps
	}
	if n != first.Nodes[0].Iterations || n < 20 {
		t.Fatalf("record's supersteps %+v: %d, the run's %d", res.Records[0].Supersteps, n, first.Nodes[0].Iterations)
	}
	second, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	if second.Predicted != nil || !strings.Contains(second.Unpredicted, "run gridtui bench bsp") {
		t.Errorf("without g and l: predicted %+v (%q)", second.Predicted, second.Unpredicted)
	}
	if err := predict.SaveBSP(store, predict.BSPParams{R: 1e9, Networks: map[string]predict.BSPNetwork{predict.AllPairs: {G: 1e-9, L: 1e-3}}}); err != nil {
		t.Fatal(err)
	}
	third, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	p := third.Predicted
	if p == nil || p.BSP == nil || p.BSP.Supersteps != n || p.BSP.Source != second.RecordID || p.BSP.Network != predict.AllPairs ||
		p.Seconds < float64(n)*1e-3 {
		t.Fatalf("third run predicted %+v (%q), want %d supersteps of at least 1 ms from run %s", p, third.Unpredicted, n, second.RecordID)
	}
	var text strings.Builder
	if err := third.WriteText(&text); err != nil || !strings.Contains(text.String(), "supersteps (BSP W + h·g + l: W ") {
		t.Errorf("report: %v\n%s", err, text.String())
	}
}
