package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversFromMemory: with the checkpoints in memory only (nothing
// is written under the data directory), and a killed
// worker's part is restored from its buddy's copy: the synchronous run is
// bit for bit the undisturbed one.
func TestRunRecoversFromMemory(t *testing.T) {
	memoryOnly(t)
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: store, Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	faultAt(&opt, "beta-3", syscall.SIGKILL, 60, nil)
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "beta-3")
	if _, err := os.Stat(filepath.Join(store, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("checkpoints on disk without checkpoint_dir: %v", err)
	}
}

// TestRunBuddyLostToo: a part's node and its buddy, which holds its only
// copy, killed together: the run fails cleanly, naming both.
func TestRunBuddyLostToo(t *testing.T) {
	memoryOnly(t)
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	var f *fault
	f = faultAt(&opt, "", 0, 60, func() {
		// Rank 1 (alpha-2)'s buddy is the second node of the other cluster
		// (pickBuddies): beta-2. f.mu is held here.
		syscall.Kill(f.pids["alpha-2"], syscall.SIGKILL)
		syscall.Kill(f.pids["beta-2"], syscall.SIGKILL)
	})
	rep, err := Run(context.Background(), spec, opt)
	if err == nil || rep.Outcome != "failed" {
		t.Fatalf("error %v, report %s", err, summary(rep))
	}
	t.Log(rep.Cause)
	if !strings.Contains(rep.Cause, "alpha-2") || !strings.Contains(rep.Cause, "beta-2") {
		t.Errorf("cause %q: want both alpha-2 and beta-2 named", rep.Cause)
	}
}

// TestRunAsyncSurvivorsGoOn: after a loss in an asynchronous run the
// survivors resume where they stopped (their iteration counters, as the
// telemetry shows them, never go back: only the lost part restarts from its
// buddy's copy), and the run is not fooled into an early termination: it
// ends ok with a true residual below ε.
func TestRunAsyncSurvivorsGoOn(t *testing.T) {
	memoryOnly(t)
	spec := recoverySpec(jobs.Asynchronous, 24, "1e-7")
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	const lost = "beta-2"
	faultAt(&opt, lost, syscall.SIGKILL, 60, nil)
	inject := opt.OnSnapshot
	var mu sync.Mutex
	high, from := map[string]int{}, map[string]uint64{}
	var back []string
	opt.OnSnapshot = func(s Snapshot) {
		inject(s)
		mu.Lock()
		defer mu.Unlock()
		for _, st := range s.Nodes {
			if st.Node == lost || st.Iteration == 0 {
				continue
			}
			// A recovered attempt's statuses say where the part restarted:
			// never before the last iteration seen of it.
			if st.Restored != from[st.Node] && st.Restored < uint64(high[st.Node]) {
				back = append(back, fmt.Sprintf("%s was at %d, restarted at %d", st.Node, high[st.Node], st.Restored))
			}
			if st.Iteration < high[st.Node] && st.Restored == from[st.Node] {
				back = append(back, fmt.Sprintf("%s %d → %d", st.Node, high[st.Node], st.Iteration))
			}
			from[st.Node] = st.Restored
			high[st.Node] = max(high[st.Node], st.Iteration)
		}
	}
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(back) > 0 {
		t.Errorf("survivors' iteration counters went back: %v", back)
	}
}

// memoryOnly keeps the local grid's checkpoints in memory alone for the
// test (no default directory on the console's disk).
func memoryOnly(t *testing.T) {
	diskByDefault = false
	t.Cleanup(func() { diskByDefault = true })
}
