package owner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/owner/ownertest"
)

// The idle time of an interactive session is its terminal's: an hour after
// the owner left, seconds after a keystroke, as `w` shows it.
func TestSessionIdleFollowsTheTerminal(t *testing.T) {
	a := ownertest.NewTerminal(t, "owner")
	actx := a.Context(context.Background())
	a.Away(time.Hour)
	if idle := SessionIdle(actx, time.Now()); idle < 59*time.Minute || idle > 61*time.Minute {
		t.Fatalf("idle %v an hour after the last key, want about 1h", idle)
	}
	a.Types()
	if idle := SessionIdle(actx, time.Now()); idle > 10*time.Second {
		t.Fatalf("idle %v right after a key, want under 10 s", idle)
	}
}

// The test plays the owner at a terminal: away, gridtui's part starts; a
// keystroke suspends it (HTCondor's KeyboardBusy) within a sampling
// interval or two; away again for idle_to_continue, it continues. The
// owner's CPU load is not what decides here (thresholds out of reach).
func TestGovernorOwnerAtTerminal(t *testing.T) {
	a := ownertest.NewTerminal(t, "owner")
	actx := a.Context(context.Background())
	a.Away(time.Hour)
	p := Default()
	p.OwnerCPUIdle, p.OwnerCPUBusy = 1024, 1024
	s := NewSampler()
	var mu sync.Mutex
	var log []Decision
	g := &Governor{Policy: p, Interval: 100 * time.Millisecond, Sample: s.Sample,
		Apply: func(Decision) error { return nil },
		Log: func(d Decision, err error) {
			mu.Lock()
			log = append(log, d)
			mu.Unlock()
			t.Logf("decision: %v", d)
		}}
	ctx, cancel := context.WithCancel(actx)
	defer cancel()
	go g.Run(ctx)
	wait := func(what string, want Action) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := len(log) > 0 && log[len(log)-1].Action == want
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: no %v decision within 10 s", what, want)
	}
	wait("owner away an hour", Start)
	a.Types()
	wait("a keystroke", Suspend)
	mu.Lock()
	why := log[len(log)-1].Reason
	mu.Unlock()
	if !strings.Contains(why, "owner active") {
		t.Errorf("suspended because %q, want the owner's activity", why)
	}
	a.Away(p.IdleToContinue + time.Minute)
	wait("owner away again", Continue)
}
