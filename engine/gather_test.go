package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestGatherToDisk runs a synchronous job twice: gathered in memory, and
// gathered to a file piece by piece because the solution exceeds the
// console's gather limit. The file holds the same values, in rank order,
// the report names it and says it was not checked, and a solution that fits
// neither the memory nor the disk is refused with the figures.
func TestGatherToDisk(t *testing.T) {
	inv := loadInventory(t, "")
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "24", "eps": "1e-4"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 3}, Cores: 1}
	mem := runJob(t, inv, spec, RunOptions{})
	if len(mem.Solution) != 24*24*24 || !mem.Checked {
		t.Fatalf("in-memory run: %d values, checked %v", len(mem.Solution), mem.Checked)
	}
	spec.Output.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	disk, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir(), GatherLimit: 1})
	if err != nil || disk.Outcome != "ok" {
		t.Fatalf("run gathered to disk: %v", err)
	}
	if len(disk.Outputs) != 1 || !strings.HasSuffix(disk.Outputs[0], ".f64") {
		t.Fatalf("outputs %v, want the solution file", disk.Outputs)
	}
	if disk.Checked || disk.Solution != nil {
		t.Errorf("a solution gathered to disk was assembled (checked %v, %d values)", disk.Checked, len(disk.Solution))
	}
	if !strings.Contains(strings.Join(disk.Warnings, "\n"), "gathered to "+disk.Outputs[0]) {
		t.Errorf("warnings %q do not name the file", disk.Warnings)
	}
	b, err := os.ReadFile(disk.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 8*len(mem.Solution) {
		t.Fatalf("file of %d bytes, want %d", len(b), 8*len(mem.Solution))
	}
	for i, want := range mem.Solution {
		if got := math.Float64frombits(binary.NativeEndian.Uint64(b[8*i:])); got != want {
			t.Fatalf("value %d: %v on disk, %v in memory", i, got, want)
		}
	}

	_, _, err = gatherValues([]int{1 << 40}, 1, t.TempDir(), "huge")
	if !errors.Is(err, jobs.ErrMemory) || !strings.Contains(err.Error(), "8.0 TiB") || !strings.Contains(err.Error(), "free") {
		t.Errorf("a solution larger than the disk: %v, want a refusal with the figures", err)
	}
}
