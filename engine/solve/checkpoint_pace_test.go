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
	p.init(25, false, 0)
	for it, want := range map[int]bool{0: false, 25: true, 50: true, 60: false} {
		if p.due(it) != want {
			t.Errorf("fixed 25, iteration %d: due %v", it, !want)
		}
	}
	var a pace
	a.init(200, true, 0)
	a.firstStep = 200 // as firstLevel chooses for slow sweeps (TestPaceFirst)
	if a.due(100) || !a.due(200) {
		t.Fatal("auto: the first checkpoint is not at the chosen step")
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

// TestFirstLevel: the first checkpoint's step is the greatest power of 2
// times the base whose time is at most the grain (the base when even it
// takes longer).
func TestFirstLevel(t *testing.T) {
	cases := []struct {
		name string
		per  time.Duration // one iteration
		want int
	}{
		{"fast sweeps", 10 * time.Microsecond, 256}, // 200·256·10 µs = 0.512 s ≤ 0.625 s < 1.02 s
		{"1 ms", time.Millisecond, 2},               // 0.4 s ≤ 0.625 s < 0.8 s
		{"slow sweeps", 25 * time.Millisecond, 1},   // the base, even past the grain
	}
	grain := FirstCheckpointAfter / 8
	for _, c := range cases {
		got := firstLevel(200, 1000, 1000*c.per, grain)
		if got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	if got := firstLevel(200, 0, time.Second, grain); got != 1 {
		t.Errorf("no iterations timed: %d, want 1", got)
	}
}

// TestPaceFirst: under Auto the part times base/2 iterations from the
// base/2-th, chooses its step, and takes its first checkpoint at the
// first multiple of the step reached once the time is up (a restored part
// times from where it starts).
func TestPaceFirst(t *testing.T) {
	var p pace
	p.init(200, true, time.Hour)
	for it := 1; it < 100; it++ {
		if p.due(it) {
			t.Fatalf("due at %d, before any timing", it)
		}
	}
	if p.due(100) || p.t0.IsZero() {
		t.Fatal("iteration 100: not timed from")
	}
	p.t0 = time.Now().Add(-100 * time.Millisecond) // 1 ms an iteration
	const step = 200 * 2048                        // 409.6 s ≤ 450 s (an hour / 8) < 819.2 s
	if p.due(200) || p.firstStep != step {
		t.Fatalf("iteration 200: step %d, want 200·2048", p.firstStep)
	}
	if p.due(step) {
		t.Error("due before the time is up")
	}
	p.t0 = time.Now().Add(-2 * time.Hour)
	if p.due(step+200) || !p.due(2*step) {
		t.Error("the first is not at the step's next multiple once the time is up")
	}
	if e, _ := p.interval(); e != 0 {
		t.Errorf("interval %d reported before the first was written", e)
	}
	var q pace // a first checkpoint brought forward: at the base
	q.init(200, true, time.Nanosecond)
	if q.due(100) || !q.due(200) {
		t.Error("first brought forward: not at 200")
	}
	var r pace
	r.init(200, true, 0)
	r.due(3201)
	if r.i0 != 3201 || r.due(3300) || r.firstStep != 0 {
		t.Errorf("restored: timed from %d, step %d", r.i0, r.firstStep)
	}
}

// TestPaceWarm: under Auto the part is told once, at a multiple of the
// first step passed three quarters of the wait, to prepare the first
// checkpoint; before that, never (a run that ends early pays nothing).
func TestPaceWarm(t *testing.T) {
	var p pace
	p.init(200, true, time.Hour)
	p.i0, p.firstStep = 100, 200
	p.t0 = time.Now().Add(-30 * time.Minute)
	if p.due(200) || p.warmNow() {
		t.Fatal("half way: due or warm")
	}
	p.t0 = time.Now().Add(-50 * time.Minute)
	if p.due(300) || p.warmNow() {
		t.Fatal("warm between two multiples of the step")
	}
	if p.due(400) || !p.warmNow() {
		t.Fatal("three quarters of the way, at a multiple: not warm")
	}
	if p.warmNow() {
		t.Error("warm twice")
	}
	p.t0 = time.Now().Add(-2 * time.Hour)
	if !p.due(600) || p.warmNow() {
		t.Error("the first checkpoint not due after the wait, or warm again")
	}
	var f pace
	f.init(25, false, 0)
	for it := 1; it <= 100; it++ {
		f.due(it)
		if f.warmNow() {
			t.Fatalf("fixed interval: warm at %d", it)
		}
	}
}
