package worker

import (
	"context"
	"io"
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

// A held part asks to be drained once per attempt: a part of a synchronous
// run after sync_grace (holding it stalls the others), a part of an
// asynchronous run only when the policy decides to give it back
// (max_suspend); never while the policy has not looked at the host.
func TestOwnerRuleAsksDrain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scheme solve.Scheme
		decide bool // a Drain decision comes after the suspend
		want   string
	}{
		{"sync", solve.Synchronous, false, "sync run held"},
		{"hybrid", solve.Hybrid, false, "hybrid run held"},
		{"async held", solve.Asynchronous, false, ""},
		{"async max_suspend", solve.Asynchronous, true, "drain: suspended 10m0s ≥ max_suspend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &ownerRule{gate: owner.NewGate(), out: io.Discard, grace: 50 * time.Millisecond}
			r.gate.Drain = r.onDrain
			asked := make(chan string, 4)
			r.setAsk(func(_ context.Context, job *jobState, why string) error {
				if job.task.Run != 42 {
					t.Errorf("drain asked for attempt %d, want 42", job.task.Run)
				}
				asked <- why
				return nil
			})
			job := &jobState{task: WorkerTask{Run: 42, Node: "pc-2", Scheme: tc.scheme}, latest: solve.NodeStatus{State: solve.StateActive}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go r.pass(ctx, job)
			time.Sleep(3 * holdTickForTest)
			select {
			case why := <-asked:
				t.Fatalf("asked to drain before the policy looked at the host: %q", why)
			default:
			}
			r.gate.Apply(owner.Decision{At: time.Now(), Action: owner.Suspend, Reason: "owner active"})
			if tc.decide {
				r.gate.Apply(owner.Decision{At: time.Now(), Action: owner.Drain, Reason: "suspended 10m0s ≥ max_suspend 10m0s"})
			}
			select {
			case why := <-asked:
				if tc.want == "" || !strings.Contains(why, tc.want) {
					t.Fatalf("asked to drain because %q, want %q", why, tc.want)
				}
			case <-time.After(3 * holdTick):
				if tc.want != "" {
					t.Fatalf("no drain asked, want one because %q", tc.want)
				}
				return
			}
			select {
			case why := <-asked:
				t.Errorf("asked twice in one attempt: %q", why)
			case <-time.After(2 * holdTick):
			}
		})
	}
}

// holdTickForTest is a short wait for a pass that should not ask yet.
const holdTickForTest = 20 * time.Millisecond
