package solve

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/internal/checkpoint"
)

// commonIteration is the newest iteration every rank has a checkpoint of.
func commonIteration(t *testing.T, d checkpoint.Dir, run string, ranks int) uint64 {
	t.Helper()
	var common []uint64
	for r := range ranks {
		its, err := d.Iterations(run, r)
		if err != nil {
			t.Fatal(err)
		}
		if r == 0 {
			common = its
			continue
		}
		common = slices.DeleteFunc(common, func(it uint64) bool { return !slices.Contains(its, it) })
	}
	if len(common) == 0 {
		t.Fatal("no iteration every rank has a checkpoint of")
	}
	return common[0]
}

// TestSyncRestoreBitForBit: a synchronous run restored on every rank from
// a checkpoint of the same iteration (the rollback of a recovery) does the
// undisturbed run's iterations and gives its values bit for bit.
func TestSyncRestoreBitForBit(t *testing.T) {
	dir := t.TempDir()
	c := chainRun{p: obstacle.Problem{N: 16, Eps: 1e-7}, ranks: 3, cores: 1, scheme: Synchronous,
		checkpoint: &CheckpointPlan{Dir: dir, Every: 25, Run: "sync-restore"}}
	want, ranges := c.run(t)
	if want[0].Checkpoints == 0 {
		t.Fatal("no checkpoint taken")
	}
	k := commonIteration(t, checkpoint.Dir{Path: dir}, "sync-restore", c.ranks)
	t.Logf("restored from iteration %d of %d", k, want[0].Iterations)
	c.checkpoint = &CheckpointPlan{Dir: dir, Every: 25, Run: "sync-restore", Restore: k}
	got, _ := c.run(t)
	for r := range got {
		if got[r].Restored != k || got[r].Iterations != want[r].Iterations {
			t.Fatalf("rank %d: restored from %d (want %d), %d iterations, undisturbed %d", r, got[r].Restored, k, got[r].Iterations, want[r].Iterations)
		}
	}
	a, b := assemble(t, c.p, ranges, want), assemble(t, c.p, ranges, got)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("value %d: %v after the restore, undisturbed %v", i, b[i], a[i])
		}
	}
}

// TestAsyncRestoreLatest: an asynchronous run restored from each rank's
// newest checkpoint converges, and no counter goes below its checkpoint's.
func TestAsyncRestoreLatest(t *testing.T) {
	dir := t.TempDir()
	c := chainRun{p: obstacle.Problem{N: 16, Eps: 1e-7}, ranks: 3, cores: 1, scheme: Asynchronous,
		checkpoint: &CheckpointPlan{Dir: dir, Every: 20, Run: "async-restore"}}
	c.run(t)
	c.checkpoint = &CheckpointPlan{Dir: dir, Every: 20, Run: "async-restore", Latest: true}
	got, _ := c.run(t)
	for r := range got {
		if got[r].Restored == 0 || got[r].Iterations < int(got[r].Restored) || !got[r].Converged {
			t.Fatalf("rank %d: restored from %d, %d iterations, converged %v", r, got[r].Restored, got[r].Iterations, got[r].Converged)
		}
	}
}

// TestRestoreRefused: a restore of a run whose checkpoints are of another
// decomposition, or of an application without checkpoints, fails naming
// the reason; it never starts from nothing.
func TestRestoreRefused(t *testing.T) {
	dir := t.TempDir()
	c := chainRun{p: obstacle.Problem{N: 16, Eps: 1e-6}, ranks: 3, cores: 1, scheme: Synchronous,
		checkpoint: &CheckpointPlan{Dir: dir, Every: 10, Run: "refused"}}
	c.run(t)
	c.p.N = 17 // another problem: another identity
	c.checkpoint = &CheckpointPlan{Dir: dir, Run: "refused", Latest: true}
	_, _, errs := c.runAll(t)
	if err := errors.Join(errs...); err == nil || !errors.Is(err, checkpoint.ErrNone) {
		t.Fatalf("restore of another problem: %v, want ErrNone", err)
	}
	rod := chainRun{p: obstacle.Problem{N: 40, Eps: 1e-9}, ranks: 2, cores: 1, scheme: Synchronous, app: "test-rod",
		params: map[string]string{"n": "40", "eps": "1e-9"}, checkpoint: &CheckpointPlan{Dir: dir, Run: "rod", Latest: true}}
	_, _, errs = rod.runAll(t)
	if err := errors.Join(errs...); err == nil || !strings.Contains(err.Error(), "has no checkpoints") {
		t.Fatalf("restore of an application without checkpoints: %v", err)
	}
}

// TestAsyncRestoreOrStart: an asynchronous run restored after a loss
// before the lost part's first checkpoint restarts that part from the
// start (the plan's OrStart) while the others restore their newest; the
// run converges. Without OrStart the part's restore fails.
func TestAsyncRestoreOrStart(t *testing.T) {
	dir := t.TempDir()
	c := chainRun{p: obstacle.Problem{N: 16, Eps: 1e-7}, ranks: 3, cores: 1, scheme: Asynchronous,
		checkpoint: &CheckpointPlan{Dir: dir, Every: 20, Run: "async-or-start"}}
	c.run(t)
	files, err := filepath.Glob(filepath.Join(dir, "async-or-start", "rank-1.*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("rank 1's checkpoints: %v %v", files, err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	c.checkpoint = &CheckpointPlan{Dir: dir, Every: 20, Run: "async-or-start", Latest: true}
	if _, _, errs := c.runAll(t); !errors.Is(errors.Join(errs...), checkpoint.ErrNone) {
		t.Fatalf("rank 1 without a checkpoint nor OrStart: %v, want ErrNone", errors.Join(errs...))
	}
	c.checkpoint = &CheckpointPlan{Dir: dir, Every: 20, Run: "async-or-start", Latest: true, OrStart: []int{1}}
	got, _ := c.run(t)
	for r := range got {
		if fresh := r == 1; (got[r].Restored == 0) != fresh || !got[r].Converged {
			t.Fatalf("rank %d: restored from %d (from the start: %v), converged %v", r, got[r].Restored, fresh, got[r].Converged)
		}
	}
	if notes := strings.Join(got[1].CheckpointNotes, "; "); !strings.Contains(notes, "from the start") {
		t.Errorf("rank 1's notes %q: want it restarted from the start", notes)
	}
}
