package engine

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/internal/exithold"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunKilledWorkerSlowToDie kills one worker mid-run while a thread of
// it cannot exit yet (as on a crowded host, where a killed process's
// threads wait to be scheduled for their exit, its links open meanwhile):
// the run still names it within detectLimit, as a process killed by
// SIGKILL, from the console's sight of the signal; and once the process
// is let go nothing is left running.
func TestRunKilledWorkerSlowToDie(t *testing.T) {
	inv := loadInventory(t, "")
	const node = "alpha-3"
	spec := jobs.Spec{App: "obstacle", Params: longObstacle, Scheme: jobs.Asynchronous,
		Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, MaxIter: 1 << 30, WallTime: 2 * time.Minute}
	opt := RunOptions{Inventory: inv, StoreDir: t.TempDir(), NoRecord: true}
	var (
		f       *fault
		hold    *exithold.Hold
		holdErr error
	)
	f = faultAt(&opt, node, 0, 10, func() {
		pid := f.pids[node] // under f.mu
		if hold, holdErr = exithold.New(pid); holdErr == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// Let the held thread go once the failure is named (or after a
	// while), noting whether the process was still there when it was.
	heldAtDetection := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if s, d := f.times(); !s.IsZero() && (!d.IsZero() || time.Since(s) > 10*time.Second) {
				f.mu.Lock()
				h, pid := hold, f.pids[node]
				f.mu.Unlock()
				heldAtDetection <- h != nil && syscall.Kill(pid, 0) == nil
				h.Release()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		heldAtDetection <- false
	}()
	rep, err := Run(context.Background(), spec, opt)
	held := <-heldAtDetection
	if holdErr != nil {
		t.Skip(holdErr)
	}
	if !errors.Is(err, ErrRunFailed) || rep == nil || rep.FailedNode != node {
		t.Fatalf("want a failed run naming %s; got %v (%s)", node, err, summary(rep))
	}
	if !strings.Contains(rep.Cause, "worker process exited") || !strings.Contains(rep.Cause, "killed (SIGKILL)") {
		t.Errorf("cause %q, want the worker's exit by SIGKILL", rep.Cause)
	}
	if !held {
		t.Error("the process was gone when the failure was named: the test did not hold its end")
	}
	if lag := f.lag(); lag <= 0 || lag > detectLimit {
		t.Errorf("failure named %v after the signal, want at most %v", lag, detectLimit)
	}
	t.Logf("named after %v: %s", f.lag().Round(time.Millisecond), rep.Cause)
	assertGone(t, f.allPIDs())
}
