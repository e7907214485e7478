package worker

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestSupersededJobKeepsNewCoordinator is the root of a TestRunRecoversOnSpare
// failure: alpha-3, a member in attempt 7 whose end had not reached it yet,
// is made a coordinator in attempt 8. The assignment installs the
// coordinator role, then the node's own task of attempt 8 supersedes its
// job of attempt 7 — and ending that job ended the new coordinator role
// too. The node then sent its parent nothing (no heartbeat, no status),
// forwarded no task to its members, and the submitter judged it lost after
// StartupTimeout: a second recovery. Ending attempt 7 must end only
// attempt 7's roles.
func TestSupersededJobKeepsNewCoordinator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, z := sendPair(t, ctx, 0) // alpha-1, and its parent alpha-2
	n.live = NewLiveness(ChildLimits)
	n.dataAddrs = []string{"bogus://no-data-endpoint"} // the task fails at once, without a solver
	old := &jobState{task: WorkerTask{Node: "alpha-1", Run: 7}, cancel: func() {}, done: make(chan struct{})}
	close(old.done)
	n.job = old
	parent := NodeID("alpha-2")
	a := GroupAssign{Run: 8, Group: 1, Coordinator: "alpha-1", Parent: parent,
		Members: []Member{{Node: "alpha-1", Peer: n.self, Task: WorkerTask{Node: "alpha-1", Run: 8}}}}
	if err := n.coordinate(ctx, parent, a); err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	c, job, ended := n.coord, n.job, slices.Clone(n.ended)
	n.mu.Unlock()
	if c == nil || c.assign.Run != 8 {
		t.Fatalf("coordinator role after the job of run 7 was superseded: %v, want run 8's", c)
	}
	if job == nil || job.task.Run != 8 {
		t.Fatalf("job %v, want run 8's", job)
	}
	if !slices.Contains(ended, 7) || slices.Contains(ended, 8) {
		t.Errorf("runs ended here %v, want 7 and not 8", ended)
	}
	if _, ok := n.live.name(parent); !ok {
		t.Errorf("parent of run 8 no longer watched")
	}
	// The role is alive: its telemetry goes up to the parent.
	n.tickCoord(ctx, time.Now())
	wctx, stop := context.WithTimeout(ctx, 5*time.Second)
	defer stop()
	src, _, err := z.Wait(wctx)
	if err != nil || src != n.self {
		t.Fatalf("the parent heard from peer %d (%v), want the coordinator %d", src, err, n.self)
	}
}
