package owner

import (
	"strings"
	"testing"
	"time"
)

// A day at a desktop under the default policy: nobody there, gridtui
// starts; the owner comes back (keyboard), the part suspends; the owner's
// compile keeps the CPU busy; past max_suspend the part is drained, past
// max_vacate the worker stops.
func TestDeciderDesktopDay(t *testing.T) {
	p := Default()
	t0 := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	at := func(m float64) time.Time { return t0.Add(time.Duration(m * float64(time.Minute))) }
	steps := []struct {
		min    float64
		idle   time.Duration
		load   float64
		action Action
		state  State
		reason string
	}{
		{0, 3 * time.Minute, 0, Wait, Idle, "session idle 3m0s < 15m0s"},
		{1, 20 * time.Minute, 0.9, Wait, Idle, "owner's CPU load 0.90 > owner_cpu_idle 0.30"},
		{2, 20 * time.Minute, 0.1, Start, Running, "session idle 20m0s ≥ 15m0s"},
		{3, NoSession, 0.6, Keep, Running, "owner away"},
		{4, NoSession, 0.6, Keep, Running, "owner away"},
		{5, NoSession, 0.7, Suspend, Suspended, "owner's CPU load 0.70 ≥ owner_cpu_busy 0.50 for 2m0s"},
		{6, 2 * time.Minute, 0.1, Keep, Suspended, "session idle 2m0s < 5m0s"},
		{8, 6 * time.Minute, 0.1, Continue, Running, "session idle 6m0s ≥ 5m0s"},
		{9, 10 * time.Second, 0, Suspend, Suspended, "owner active: session idle 10s < active_idle 1m0s"},
		{19, 10 * time.Second, 0, Drain, Draining, "suspended 10m0s ≥ max_suspend 10m0s"},
		{25, 10 * time.Second, 0, Keep, Draining, "draining"},
		{29, 10 * time.Second, 0, Stop, Stopped, "draining 10m0s ≥ max_vacate 10m0s"},
	}
	d := NewDecider(p)
	for _, s := range steps {
		got := d.Decide(Observation{At: at(s.min), Idle: s.idle, OwnerLoad: s.load})
		if got.Action != s.action || got.State != s.state || !strings.Contains(got.Reason, s.reason) {
			t.Errorf("minute %g: %s (%s), state %s; want %s (%s), state %s", s.min, got.Action, got.Reason, got.State, s.action, s.reason, s.state)
		}
	}
}

// Owner hours (weekdays 8–19) keep gridtui off and suspend it; free memory
// below the bound suspends it.
func TestDeciderHoursAndMemory(t *testing.T) {
	p := Default()
	w, err := ParseWindow("Mon-Fri 08:00-19:00")
	if err != nil {
		t.Fatal(err)
	}
	p.OwnerHours = []Window{w}
	p.MinFreeMemory = 1 << 30
	friday := time.Date(2026, 11, 27, 18, 59, 0, 0, time.UTC)
	d := NewDecider(p)
	if got := d.Decide(Observation{At: friday, Idle: NoSession}); got.Action != Wait || !strings.Contains(got.Reason, "owner hours Mon-Fri 08:00-19:00") {
		t.Errorf("in owner hours: %v", got)
	}
	if got := d.Decide(Observation{At: friday.Add(time.Minute), Idle: NoSession, FreeMemory: 4 << 30}); got.Action != Start {
		t.Errorf("after owner hours: %v", got)
	}
	if got := d.Decide(Observation{At: friday.Add(2 * time.Minute), Idle: NoSession, FreeMemory: 512 << 20}); got.Action != Suspend || !strings.Contains(got.Reason, "free memory 512 MiB < min_free_memory 1024 MiB") {
		t.Errorf("low memory: %v", got)
	}
}

func TestParseWindow(t *testing.T) {
	good := map[string][]time.Time{
		"Mon-Fri 08:00-19:00":    {time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 27, 18, 59, 59, 0, time.UTC)},
		"Sat,Sunday 00:00-24:00": {time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC)},
		"Fri-Mon 20:00-22:00":    {time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)},
	}
	for s, in := range good {
		w, err := ParseWindow(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		for _, at := range in {
			if !w.Contains(at) {
				t.Errorf("%q does not contain %v", s, at)
			}
		}
		if w.Contains(time.Date(2026, 11, 25, 19, 0, 0, 0, time.UTC)) && s == "Mon-Fri 08:00-19:00" {
			t.Errorf("%q contains its end", s)
		}
	}
	for _, s := range []string{"Mon-Fri", "Mon-Fri 19:00-08:00", "Mon-Fri 10:00-10:00", "Moo 08:00-09:00", "Mon 8-9", "Mon 25:00-26:00", "Mon 08:60-09:00", "Mon 24:30-24:40"} {
		if _, err := ParseWindow(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	if k, err := Default().Check(); err != nil {
		t.Fatalf("default: %s: %v", k, err)
	}
	bad := map[string]func(*Policy){
		"owner_cpu_busy":   func(p *Policy) { p.OwnerCPUBusy = 0 },
		"owner_cpu_idle":   func(p *Policy) { p.OwnerCPUIdle = 0.9 },
		"cpu_cap":          func(p *Policy) { p.CPUCap = 150 },
		"max_suspend":      func(p *Policy) { p.MaxSuspend = -time.Second },
		"active_idle":      func(p *Policy) { p.ActiveIdle = time.Hour },
		"idle_to_continue": func(p *Policy) { p.IdleToContinue = 30 * 24 * time.Hour },
	}
	for want, f := range bad {
		p := Default()
		f(&p)
		if k, err := p.Check(); k != want || err == nil {
			t.Errorf("%s: got key %q, err %v", want, k, err)
		}
	}
}
