package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/owner"
)

// A part held by its host's owner policy stops between sweeps, its status
// saying why with its halos' age, and goes on when the policy lets it;
// the hold is counted for the report, but not the wait for the policy's
// first look at the host.
func TestOwnerRuleHoldsThePart(t *testing.T) {
	r := &ownerRule{gate: owner.NewGate()}
	job := &jobState{latest: solve.NodeStatus{Node: "pc-2", State: solve.StateActive}}
	ctx := context.Background()
	passed := make(chan struct{})
	go func() { r.pass(ctx, job); close(passed) }()
	time.Sleep(20 * time.Millisecond)
	r.gate.Apply(owner.Decision{At: time.Now(), Action: owner.Start, Reason: "no interactive session"})
	<-passed
	if held, holds := r.total(); held != 0 || holds != 0 {
		t.Errorf("the first look counted as a hold: %v, %d", held, holds)
	}
	r.gate.Apply(owner.Decision{At: time.Now(), Action: owner.Suspend, Reason: "owner active: session idle 2s < active_idle 1m0s"})
	passed = make(chan struct{})
	go func() { r.pass(ctx, job); close(passed) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		job.mu.Lock()
		h := job.latest.Held
		job.mu.Unlock()
		if h != nil {
			if !strings.HasPrefix(h.Reason, "suspend: owner active") {
				t.Errorf("held because %q", h.Reason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the held part's status never said so")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-passed:
		t.Fatal("a suspended part went on sweeping")
	case <-time.After(50 * time.Millisecond):
	}
	r.gate.Apply(owner.Decision{At: time.Now(), Action: owner.Continue, Reason: "owner away"})
	select {
	case <-passed:
	case <-time.After(5 * time.Second):
		t.Fatal("continue did not let the part go on")
	}
	if job.latest.Held != nil {
		t.Errorf("still held after continue: %+v", job.latest.Held)
	}
	if held, holds := r.total(); holds != 1 || held < 50*time.Millisecond {
		t.Errorf("held %v in %d holds, want one of ≥ 50ms", held, holds)
	}
	var none *ownerRule
	none.pass(ctx, job) // no policy: returns at once
}
