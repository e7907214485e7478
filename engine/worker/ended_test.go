package worker

import (
	"log/slog"
	"testing"

	"github.com/gridtui/gridtui/deploy"
)

// TestLateTaskOfEndedRunDropped: a task of an attempt that already ended
// on this node (a frame left to finish in the background, arriving after
// the next attempt's task) is dropped, never started: it would supersede
// the current attempt's job.
func TestLateTaskOfEndedRunDropped(t *testing.T) {
	n := &node{boot: deploy.Boot{Node: "alpha-1"}, self: NodeID("alpha-1"), log: slog.New(slog.DiscardHandler)}
	n.job = &jobState{task: WorkerTask{Node: "alpha-1", Run: 7}, cancel: func() {}, done: make(chan struct{})}
	close(n.job.done)
	n.live = NewLiveness(ChildLimits)
	n.endRun(7, "test")
	if err := n.startTask(t.Context(), n.self, WorkerTask{Node: "alpha-1", Run: 7}); err != nil || n.job != nil {
		t.Fatalf("late task of run 7: %v, job %v: want it dropped", err, n.job)
	}
}
