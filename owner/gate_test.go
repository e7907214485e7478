package owner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A gate starts closed, opens on start, holds the computing goroutine on
// suspend (saying why, every tick) and lets it go on continue; drain with
// no hook keeps it held and says so; stop calls its hook.
func TestGate(t *testing.T) {
	g := NewGate()
	if _, _, held := g.Held(); !held {
		t.Fatal("a new gate is open before any decision")
	}
	g.Apply(Decision{Action: Start, Reason: "no interactive session"})
	if took := g.Pass(context.Background(), time.Millisecond, nil); took != 0 {
		t.Errorf("an open gate held for %v", took)
	}
	at := time.Now()
	g.Apply(Decision{At: at, Action: Suspend, Reason: "owner active"})
	since, reason, held := g.Held()
	if !held || !since.Equal(at) || reason != "suspend: owner active" {
		t.Errorf("held %v since %v (%q), want since %v for the suspension", held, since, reason, at)
	}
	var ticks atomic.Int32
	passed := make(chan time.Duration)
	go func() {
		passed <- g.Pass(context.Background(), 5*time.Millisecond, func(time.Time, string) { ticks.Add(1) })
	}()
	time.Sleep(50 * time.Millisecond)
	g.Apply(Decision{At: at.Add(time.Second), Action: Suspend, Reason: "owner still here"})
	if s, _, _ := g.Held(); !s.Equal(at) {
		t.Errorf("a second suspension moved the hold's start to %v", s)
	}
	g.Apply(Decision{Action: Continue, Reason: "owner away"})
	select {
	case took := <-passed:
		if took < 40*time.Millisecond || ticks.Load() < 2 {
			t.Errorf("held %v with %d ticks, want ≥ 40ms and ticks", took, ticks.Load())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("continue did not release the part")
	}
	if err := g.Apply(Decision{Action: Drain, Reason: "suspended 10m"}); !errors.Is(err, ErrNoDrain) {
		t.Errorf("drain without a hook: %v", err)
	}
	if _, r, held := g.Held(); !held || !strings.HasPrefix(r, "drain:") {
		t.Errorf("after drain: held %v (%q)", held, r)
	}
	var stopped Decision
	g.Stop = func(d Decision) error { stopped = d; return nil }
	g.Apply(Decision{Action: Stop, Reason: "draining 10m"})
	if stopped.Reason != "draining 10m" {
		t.Errorf("stop hook got %+v", stopped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if took := g.Pass(ctx, time.Millisecond, nil); took > time.Second {
		t.Errorf("a held pass outlived its context: %v", took)
	}
}

// A policy travels as JSON (a worker's boot) with its windows as written.
func TestPolicyJSON(t *testing.T) {
	p := Default()
	w, _ := ParseWindow("Mon-Fri 08:00-19:00")
	p.OwnerHours, p.Users = []Window{w}, []string{"alice"}
	b, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(b), `"OwnerHours":["Mon-Fri 08:00-19:00"]`) {
		t.Fatalf("%s, %v", b, err)
	}
	var q Policy
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if q.OwnerHours[0].String() != w.String() || q.OwnerHours[0].Days != w.Days || q.Users[0] != "alice" || q.IdleToStart != p.IdleToStart {
		t.Errorf("round trip: %+v, want %+v", q, p)
	}
	if err := json.Unmarshal([]byte(`{"OwnerHours":["Mon-Fri 19:00-08:00"]}`), &q); !errors.Is(err, ErrPolicy) {
		t.Errorf("an impossible window decoded: %v", err)
	}
}

func TestSampleEvery(t *testing.T) {
	if got := SampleEvery(Default()); got != 5*time.Second {
		t.Errorf("default: %v", got)
	}
	p := Default()
	p.CPUBusyFor = 2 * time.Second
	if got := SampleEvery(p); got != time.Second {
		t.Errorf("cpu_busy_for 2s: %v", got)
	}
}
