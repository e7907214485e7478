package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestWallTimeRunsOutWhileStarting runs a job whose wall time (1ms) ends
// before its workers say hello: the error says so (not "hosts failed"), and
// no deploy event marks a host failed.
func TestWallTimeRunsOutWhileStarting(t *testing.T) {
	inv := loadInventory(t, "")
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "8"}, Nodes: jobs.NodeSelection{Any: 2}, WallTime: time.Millisecond}
	var mu sync.Mutex
	var failed []string
	opt := RunOptions{Inventory: inv, NoRecord: true}
	opt.Deploy.Events = func(ev deploy.Event) {
		if ev.Phase == deploy.PhaseFailed {
			mu.Lock()
			failed = append(failed, ev.Host)
			mu.Unlock()
		}
	}
	_, err := Run(context.Background(), spec, opt)
	var st *StartTimeError
	if !errors.As(err, &st) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want a StartTimeError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "wall time (1ms) ran out while the 2 workers were starting") || strings.Contains(msg, "hosts failed") {
		t.Errorf("error %q", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failed) > 0 {
		t.Errorf("hosts marked failed: %v", failed)
	}
}
