package solve

import (
	"testing"
	"time"
)

// TestAutoLevel: the default interval is the least power of 4 times the
// base whose time makes a checkpoint cost at most 1 %, and no longer than
// MaxCheckpointInterval unless the base itself is.
func TestAutoLevel(t *testing.T) {
	cases := []struct {
		name   string
		per    time.Duration // one iteration
		cost   time.Duration
		want   int
		reason string
	}{
		{"cheap", time.Millisecond, time.Millisecond, 1, "200 ms ≥ 100 ms"},
		{"costly", time.Millisecond, 5 * time.Millisecond, 4, "800 ms ≥ 500 ms > 200 ms"},
		{"fast sweeps", 10 * time.Microsecond, 2 * time.Millisecond, 256, "0.512 s ≥ 0.2 s > 0.128 s"},
		{"bounded", time.Millisecond, 2 * time.Second, 64, "12.8 s ≤ 30 s < 51.2 s"},
		{"slow sweeps", time.Second, time.Second, 1, "the base, even past the bound"},
	}
	for _, c := range cases {
		if got := autoLevel(200, 1000, 1000*c.per, c.cost); got != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, got, c.want, c.reason)
		}
	}
	if got := autoLevel(200, 0, time.Second, time.Second); got != 1 {
		t.Errorf("no iterations timed: %d, want 1", got)
	}
}

// TestPace: a fixed interval takes every multiple; the default takes the
// base's first multiple, none until its write is timed, then the chosen
// multiples only (from the iteration it chose at on).
func TestPace(t *testing.T) {
	var p pace
	p.init(25, false)
	for it, want := range map[int]bool{0: false, 25: true, 50: true, 60: false} {
		if p.due(it) != want {
			t.Errorf("fixed 25, iteration %d: due %v", it, !want)
		}
	}
	var a pace
	a.init(200, true)
	if a.due(100) || !a.due(200) {
		t.Fatal("auto: the first checkpoint is at the base")
	}
	a.took(200, time.Now().Add(-400*time.Millisecond), time.Millisecond) // 400 iterations by 600
	if a.due(400) {
		t.Error("auto: a second checkpoint before the first was written")
	}
	if e, _ := a.interval(); e != 0 {
		t.Errorf("auto: interval %d before the first write was timed", e)
	}
	a.written(time.Millisecond) // 1+writeShare ms: 1 ms an iteration, 800 (800 ms) ≥ 500 ms
	if a.due(600) {
		t.Error("auto: 600 is no multiple of 800")
	}
	if e, since := a.interval(); e != 800 || since != 599 {
		t.Errorf("auto: chose %d since %d, want 800 since 599", e, since)
	}
	if !a.due(800) || a.due(1000) || !a.due(1600) {
		t.Error("auto: the chosen interval is not kept")
	}
	a.written(time.Hour) // only the first write counts
	if e, _ := a.interval(); e != 800 {
		t.Errorf("auto: interval changed to %d", e)
	}
}
