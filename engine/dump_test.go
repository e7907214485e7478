package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
)

// TestStopSilentWorkerDumpsStacks stops a live worker as the node a run
// lost to silence: before it is killed it writes its goroutine stacks,
// the worker's own among them, to its log (`gridtui logs`); the other lost
// or stopped workers are not asked.
func TestStopSilentWorkerDumpsStacks(t *testing.T) {
	// Logs of their own: other packages' tests run local workers of the
	// same names at the same time, appending to the shared logs.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _, _ := startWorkers(t, "alpha-1", "alpha-2")
	inv := inventory.Embedded()
	before := map[string]int{}
	for _, w := range ws {
		data, _, _ := deploy.ReadWorkerLog(context.Background(), inv, w.Host, w.Host.Name, deploy.Options{})
		before[w.Host.Name] = strings.Count(string(data), "SIGQUIT: quit")
	}
	stopWorkers(ws, map[string]bool{"alpha-1": true, "alpha-2": true}, "alpha-1")
	for _, w := range ws {
		data, where, err := deploy.ReadWorkerLog(context.Background(), inv, w.Host, w.Host.Name, deploy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		log := string(data)
		dumped := strings.Count(log, "SIGQUIT: quit") - before[w.Host.Name]
		switch w.Host.Name {
		case "alpha-1":
			i := strings.LastIndex(log, "SIGQUIT: quit")
			if dumped != 1 || !strings.Contains(log[i:], "worker.ServeWorker") {
				t.Errorf("%s: no goroutine stacks of the worker in its log (%d dumps)", where, dumped)
			}
		default:
			if dumped != 0 {
				t.Errorf("%s: stacks dumped though the node was not the silent one", where)
			}
		}
		if err := w.Err(); err != nil {
			t.Errorf("%s: %v", w.Host.Name, err)
		}
	}
}

// TestSilentNode names the node of a run lost to silence, and no other.
func TestSilentNode(t *testing.T) {
	tests := []struct {
		failed *worker.Failure
		want   string
	}{
		{nil, ""},
		{&worker.Failure{Node: "a", Cause: worker.LostPeer{Silent: 3e9, Phi: 12}.Silence()}, "a"},
		{&worker.Failure{Node: "b", Cause: worker.LostPeer{Silent: 3e10, Starting: true}.Silence()}, "b"},
		{&worker.Failure{Node: "c", Cause: "worker exited: signal: killed"}, ""},
		{&worker.Failure{Node: "d", Cause: "task: rank 3: diverged"}, ""},
	}
	for _, tc := range tests {
		s := &submission{failed: tc.failed}
		if got := s.silentNode(); got != tc.want {
			t.Errorf("failure %+v: silent node %q, want %q", tc.failed, got, tc.want)
		}
	}
}
