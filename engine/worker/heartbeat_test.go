package worker

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// arrivalsFrom feeds a model the given inter-arrival times from t0 and
// returns it with the time of the last arrival.
func arrivalsFrom(t0 time.Time, gaps []time.Duration) (*arrivals, time.Time) {
	a := newArrivals(t0)
	now := t0
	for _, g := range gaps {
		now = now.Add(g)
		a.heard(now)
	}
	return a, now
}

func repeat(d time.Duration, k int) []time.Duration {
	out := make([]time.Duration, k)
	for i := range out {
		out[i] = d
	}
	return out
}

// jittered returns k gaps drawn uniformly from [lo, hi) with a fixed seed.
func jittered(lo, hi time.Duration, k int) []time.Duration {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]time.Duration, k)
	for i := range out {
		out[i] = lo + time.Duration(r.Int64N(int64(hi-lo)))
	}
	return out
}

// loaded is the arrival pattern of a peer on an oversubscribed machine: a
// few prompt heartbeats, then a stall of about two seconds, again and again.
func loaded(k int) []time.Duration {
	var out []time.Duration
	for i := range k {
		if i%4 == 3 {
			out = append(out, 2300*time.Millisecond)
		} else {
			out = append(out, 250*time.Millisecond)
		}
	}
	return out
}

// TestLivenessSilences runs the detector over synthetic arrival sequences
// and checks, for silences after the last arrival, whether the peer is
// declared lost.
func TestLivenessSilences(t *testing.T) {
	const ms = time.Millisecond
	beat, floor, bound := HeartbeatInterval, SuspectAfter, HeartbeatTimeout
	tests := map[string]struct {
		gaps   []time.Duration
		limits watchLimits
		silent time.Duration
		lost   bool
	}{
		"regular, short silence":        {gaps: repeat(beat, 100), limits: ChildLimits, silent: time.Second},
		"regular, below the floor":      {gaps: repeat(beat, 100), limits: ChildLimits, silent: floor - 100*ms},
		"regular, past the floor":       {gaps: repeat(beat, 100), limits: ChildLimits, silent: floor + 100*ms, lost: true},
		"jittered, past the floor":      {gaps: jittered(100*ms, 400*ms, 100), limits: ChildLimits, silent: floor + 100*ms, lost: true},
		"starting peer, past the floor": {limits: ChildLimits, silent: floor + 100*ms},
		"starting peer, past the bound": {limits: ChildLimits, silent: bound + 100*ms, lost: true},
		"loaded, usual stall":           {gaps: loaded(100), limits: ChildLimits, silent: floor + 100*ms},
		"loaded, long stall":            {gaps: loaded(100), limits: ChildLimits, silent: 5 * time.Second},
		"loaded, hung past the bound":   {gaps: loaded(100), limits: ChildLimits, silent: bound + 100*ms, lost: true},
		"loaded then quiet again":       {gaps: append(loaded(100), repeat(beat, arrivalHistory)...), limits: ChildLimits, silent: floor + 100*ms, lost: true},
		"parent, below its timeout":     {gaps: repeat(beat, 100), limits: parentLimits, silent: ParentTimeout - 100*ms},
		"parent, past its timeout":      {gaps: loaded(100), limits: parentLimits, silent: ParentTimeout + 100*ms, lost: true},
		"bound holds for any history":   {gaps: repeat(5*time.Second, 100), limits: ChildLimits, silent: bound + 100*ms, lost: true},
		"slow but regular, not lost":    {gaps: repeat(5*time.Second, 100), limits: ChildLimits, silent: 5 * time.Second},
		"old fixed timeout's mistake":   {gaps: loaded(20), limits: ChildLimits, silent: 2400 * ms},
		"hung right after the start":    {gaps: repeat(beat, 2), limits: ChildLimits, silent: floor + 100*ms, lost: true},
		"hung after 8 s of arrivals":    {gaps: repeat(beat, 32), limits: ChildLimits, silent: floor + 100*ms, lost: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			l := NewLiveness(ChildLimits)
			l.WatchFor(7, "alpha-7", tc.limits)
			l.Peers[7].Model.Last = t0
			now := t0
			for _, g := range tc.gaps {
				now = now.Add(g)
				l.SeenAt(7, now)
			}
			at := now.Add(tc.silent)
			lost := l.Check(at.Add(-100*time.Millisecond), at)
			if got := len(lost) == 1; got != tc.lost {
				t.Fatalf("after %v of silence: lost = %v, want %v (φ %.2f)", tc.silent, got, tc.lost, l.phiOf(7, at))
			}
			if tc.lost {
				if lost[0].Name != "alpha-7" || lost[0].Silent != tc.silent {
					t.Errorf("lost %+v, want alpha-7 silent %v", lost[0], tc.silent)
				}
				if l.Check(at, at.Add(100*time.Millisecond)) != nil {
					t.Error("a lost peer was reported twice")
				}
			}
		})
	}
}

// phiOf is the suspicion of id at now (tests only); NaN if not watched.
func (l *Liveness) phiOf(id uint32, now time.Time) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for pid, w := range l.Peers {
		if uint32(pid) == id {
			return w.Model.phi(now)
		}
	}
	return math.NaN()
}

// TestPhiGrows checks that φ never falls as a silence lasts, and that the
// same silence is less suspicious after irregular arrivals than after
// regular ones.
func TestPhiGrows(t *testing.T) {
	t0 := time.Unix(1000, 0)
	regular, r0 := arrivalsFrom(t0, repeat(250*time.Millisecond, arrivalHistory))
	irregular, i0 := arrivalsFrom(t0, loaded(arrivalHistory))
	prev := -1.0
	for d := time.Duration(0); d < 10*time.Second; d += 50 * time.Millisecond {
		p := regular.phi(r0.Add(d))
		if p < prev {
			t.Fatalf("φ fell from %.3f to %.3f at %v of silence", prev, p, d)
		}
		prev = p
		if q := irregular.phi(i0.Add(d)); d > time.Second && q >= p && !math.IsInf(p, 1) {
			t.Errorf("at %v: φ %.2f after irregular arrivals ≥ %.2f after regular ones", d, q, p)
		}
	}
	if p := regular.phi(r0.Add(2 * time.Second)); p < PhiThreshold {
		t.Errorf("2 s after regular 250 ms arrivals φ = %.2f, want ≥ %v", p, PhiThreshold)
	}
}

// TestLivenessStall checks that a watcher that was not scheduled for a
// while excuses its peers instead of declaring them lost, and watches them
// again from then.
func TestLivenessStall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewLiveness(ChildLimits)
	l.Watch(1, "a")
	l.Peers[1].Model.Last = t0
	if lost := l.Check(t0, t0.Add(5*time.Second)); lost != nil {
		t.Fatalf("stalled watcher declared %v lost", lost)
	}
	if lost := l.Check(t0.Add(5*time.Second), t0.Add(5100*time.Millisecond)); lost != nil {
		t.Fatalf("excused peer lost at once: %v", lost)
	}
	at := t0.Add(5*time.Second + HeartbeatTimeout + 200*time.Millisecond)
	if lost := l.Check(at.Add(-100*time.Millisecond), at); len(lost) != 1 {
		t.Fatalf("silent peer not lost after the stall: %v", lost)
	}
	l.Watch(2, "b")
	l.unwatch(2)
	l.Watch(3, "c")
	l.reset()
	if _, ok := l.name(3); ok {
		t.Error("reset left a peer watched")
	}
}

// TestLivenessOverloaded checks that a watcher whose own check came late
// accuses by the bound only, for overloadMemory, then by φ again.
func TestLivenessOverloaded(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewLiveness(ChildLimits)
	l.Watch(1, "a")
	l.Peers[1].Model.Last = t0
	now := t0
	for range 100 {
		now = now.Add(HeartbeatInterval)
		l.SeenAt(1, now)
	}
	// A check 300 ms after the previous one: late, not stalled.
	if lost := l.Check(now.Add(-300*time.Millisecond), now); lost != nil {
		t.Fatalf("lost %v at once", lost)
	}
	at := now.Add(SuspectAfter + time.Second)
	if lost := l.Check(at.Add(-CheckInterval), at); lost != nil {
		t.Fatalf("overloaded watcher accused by φ after %v: %v", at.Sub(now), lost)
	}
	at = now.Add(HeartbeatTimeout + 100*time.Millisecond)
	if lost := l.Check(at.Add(-CheckInterval), at); len(lost) != 1 {
		t.Fatalf("overloaded watcher did not accuse at the bound")
	}
	// A minute later, φ accuses again.
	l.Watch(2, "b")
	later := now.Add(overloadMemory + time.Second)
	l.Peers[2].Model.Last = later
	for range 100 {
		later = later.Add(HeartbeatInterval)
		l.SeenAt(2, later)
	}
	at = later.Add(SuspectAfter + time.Second)
	if lost := l.Check(at.Add(-CheckInterval), at); len(lost) != 1 {
		t.Fatal("φ did not accuse once the overload was forgotten")
	}
}

// TestLivenessExcuseLimit checks that a watcher that stalls at every check
// still names a silent peer after excuseLimit times its timeout.
func TestLivenessExcuseLimit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewLiveness(ChildLimits)
	l.Watch(1, "a")
	l.Peers[1].Model.Last, l.Peers[1].Model.heardAt = t0, t0
	prev := t0
	for now := t0.Add(time.Second); now.Sub(t0) < 40*time.Second; now = now.Add(time.Second) {
		lost := l.Check(prev, now) // every check a second late: a stall
		prev = now
		if len(lost) == 0 {
			continue
		}
		if d := now.Sub(t0); d <= ExcuseLimit*HeartbeatTimeout || d > ExcuseLimit*HeartbeatTimeout+time.Second {
			t.Fatalf("named after %v of silence, want just after %v", d, ExcuseLimit*HeartbeatTimeout)
		}
		return
	}
	t.Fatal("a stalling watcher never named the silent peer")
}

// TestLivenessLateButHearing checks that a watcher whose check is late but
// which heard other peers meanwhile does not excuse the silent one: it
// names it by the bound.
func TestLivenessLateButHearing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewLiveness(ChildLimits)
	l.Watch(1, "silent")
	l.Watch(2, "talking")
	l.Peers[1].Model.Last, l.Peers[1].Model.heardAt = t0, t0
	l.Peers[2].Model.Last, l.Peers[2].Model.heardAt = t0, t0
	prev := t0
	for now := t0.Add(time.Second); now.Sub(t0) < 20*time.Second; now = now.Add(time.Second) {
		l.SeenAt(2, now.Add(-500*time.Millisecond))
		lost := l.Check(prev, now)
		prev = now
		if len(lost) == 0 {
			continue
		}
		if lost[0].Name != "silent" || now.Sub(t0) > HeartbeatTimeout+time.Second {
			t.Fatalf("lost %v after %v", lost, now.Sub(t0))
		}
		return
	}
	t.Fatal("the silent peer was never named")
}

// TestLivenessStartup checks the start-up bound: a starting peer is not
// judged by φ nor by HeartbeatTimeout, only by StartupTimeout of wall-clock
// silence (which the watcher's stalls do not extend); once its start-up is
// over the adaptive detector judges it.
func TestLivenessStartup(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewLiveness(ChildLimits)
	l.WatchStarting(1, "alpha-2", ChildLimits) // silent from the start
	l.WatchStarting(2, "alpha-3", ChildLimits) // heard, then silent
	l.WatchStarting(3, "alpha-4", ChildLimits) // silent too; the watcher's stall does not excuse it
	l.WatchStarting(4, "alpha-5", ChildLimits) // starts, then stops
	l.WatchStarting(5, "coordinator", parentLimits)
	for id := range rmnp.PeerID(6) {
		if w := l.Peers[id]; w != nil {
			w.Model.Last, w.Model.heardAt = t0, t0
		}
	}
	now := t0
	for range 20 {
		now = now.Add(HeartbeatInterval)
		l.SeenAt(2, now)
		l.SeenAt(4, now)
		l.SeenAt(5, now)
	}
	if !l.StartedPeer(4) || l.StartedPeer(4) || l.StartedPeer(9) {
		t.Fatal("startedPeer: want true once for a starting peer, false after and for an unwatched one")
	}
	lostAt := map[string]time.Duration{}
	var causes []string
	prev := now
	for at := now.Add(CheckInterval); at.Sub(t0) < 40*time.Second; at = at.Add(CheckInterval) {
		if at.Sub(t0) > 20*time.Second && at.Sub(t0) < 22*time.Second {
			continue // the watcher stalls 2 s: excuses for the adaptive ones
		}
		for _, p := range l.Check(prev, at) {
			lostAt[p.Name] = at.Sub(t0)
			causes = append(causes, p.Silence())
		}
		prev = at
	}
	want := map[string][2]time.Duration{
		"alpha-2":     {StartupTimeout, StartupTimeout + CheckInterval},
		"alpha-3":     {now.Sub(t0) + StartupTimeout, now.Sub(t0) + StartupTimeout + CheckInterval},
		"alpha-4":     {StartupTimeout, StartupTimeout + CheckInterval},
		"alpha-5":     {now.Sub(t0) + SuspectAfter, now.Sub(t0) + HeartbeatTimeout + CheckInterval},
		"coordinator": {now.Sub(t0) + StartupTimeout, now.Sub(t0) + StartupTimeout + CheckInterval},
	}
	for name, w := range want {
		if got, ok := lostAt[name]; !ok || got <= w[0] || got > w[1] {
			t.Errorf("%s lost after %v (named: %v), want in (%v, %v]", name, got, ok, w[0], w[1])
		}
	}
	if !containsAny(strings.Join(causes, "\n"), "during its start-up") {
		t.Errorf("causes %q do not say the peer was starting", causes)
	}
}

// TestLivenessCrowded checks that a watcher on a crowded host names a
// silent peer by the hard bound alone (excuseLimit × its timeout), and by
// φ again once the host is no longer crowded.
func TestLivenessCrowded(t *testing.T) {
	for name, lim := range map[string]watchLimits{"child": ChildLimits, "parent": parentLimits} {
		t.Run(name, func(t *testing.T) {
			t0 := time.Unix(1000, 0)
			crowded := true
			l := NewLiveness(ChildLimits)
			l.crowded = func(time.Time) bool { return crowded }
			l.WatchFor(1, "alpha-2", lim)
			l.Peers[1].Model.Last, l.Peers[1].Model.heardAt = t0, t0
			now := t0
			for range 100 {
				now = now.Add(HeartbeatInterval)
				l.SeenAt(1, now)
			}
			hard := ExcuseLimit * lim.timeout
			for _, silent := range []time.Duration{lim.timeout + time.Second, hard - 100*time.Millisecond} {
				if lost := l.Check(now.Add(silent-CheckInterval), now.Add(silent)); lost != nil {
					t.Fatalf("crowded: lost after %v of silence, want only past %v", silent, hard)
				}
			}
			if lost := l.Check(now.Add(hard), now.Add(hard+CheckInterval)); len(lost) != 1 {
				t.Fatalf("crowded: not lost after %v", hard+CheckInterval)
			}
			crowded = false
			l.WatchFor(2, "alpha-3", lim)
			l.Peers[2].Model.Last, l.Peers[2].Model.heardAt = now, now
			at := now.Add(lim.timeout + 100*time.Millisecond)
			if lost := l.Check(at.Add(-CheckInterval), at); len(lost) != 1 {
				t.Fatalf("no longer crowded: not lost after %v", lim.timeout+100*time.Millisecond)
			}
		})
	}
}

// TestLivenessCrowdedStartup checks that a watcher on a crowded host gives
// a starting peer crowdedStartup of silence, and StartupTimeout otherwise.
func TestLivenessCrowdedStartup(t *testing.T) {
	for _, crowded := range []bool{true, false} {
		t0 := time.Unix(1000, 0)
		l := NewLiveness(ChildLimits)
		l.crowded = func(time.Time) bool { return crowded }
		l.WatchStarting(1, "alpha-2", ChildLimits)
		l.Peers[1].Model.Last, l.Peers[1].Model.heardAt = t0, t0
		bound := StartupTimeout
		if crowded {
			bound = crowdedStartup
		}
		if lost := l.Check(t0.Add(bound-CheckInterval), t0.Add(bound)); lost != nil {
			t.Fatalf("crowded %v: starting peer lost after %v of silence, want only past %v", crowded, bound, bound)
		}
		if lost := l.Check(t0.Add(bound), t0.Add(bound+CheckInterval)); len(lost) != 1 || !lost[0].Starting {
			t.Fatalf("crowded %v: starting peer not lost after %v: %v", crowded, bound+CheckInterval, lost)
		}
	}
}

// TestHostCrowded checks the host's crowding against its real load: a
// 2-core machine is not crowded below a load of 128, and the answer is
// cached for crowdRefresh.
func TestHostCrowded(t *testing.T) {
	now := time.Now()
	got := HostCrowded(now)
	avg := hostLoad()
	if avg == nil {
		t.Skip("no load average on this system")
	}
	want := *avg > crowdFactor*float64(runtime.NumCPU())
	if got != want && math.Abs(*avg-crowdFactor*float64(runtime.NumCPU())) > 10 {
		t.Errorf("load %.1f on %d CPUs: crowded %v, want %v", *avg, runtime.NumCPU(), got, want)
	}
	crowd.Lock()
	crowd.crowded = !got
	crowd.Unlock()
	if HostCrowded(now.Add(time.Second)) == got {
		t.Error("the host's crowding was read again within crowdRefresh")
	}
	if HostCrowded(now.Add(crowdRefresh+time.Second)) != got && math.Abs(*avg-crowdFactor*float64(runtime.NumCPU())) > 10 {
		t.Error("the host's crowding was not read again after crowdRefresh")
	}
}

// TestLivenessQueued checks that a peer whose message reached the watcher
// but waits in its queue is not named, in every regime, and that it is
// named once nothing of its arrived within the bound.
func TestLivenessQueued(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name     string
		starting bool
		crowded  bool
		silent   time.Duration // since the last message taken
		arrived  time.Duration // before now, the last message read off the link (-1: none since)
		lost     bool
	}{
		{"starting, nothing queued", true, false, StartupTimeout + time.Second, -1, true},
		{"starting, a message queued", true, false, StartupTimeout + time.Second, 2 * time.Second, false},
		{"starting, queued but too old", true, false, StartupTimeout + 5*time.Second, StartupTimeout + time.Second, true},
		{"started, nothing queued", false, false, HeartbeatTimeout + time.Second, -1, true},
		{"started, a message queued", false, false, HeartbeatTimeout + time.Second, time.Second, false},
		{"started, queued but past the bound", false, false, HeartbeatTimeout + 3*time.Second, HeartbeatTimeout + time.Second, true},
		{"crowded, nothing queued", false, true, ExcuseLimit*HeartbeatTimeout + time.Second, -1, true},
		{"crowded, a message queued", false, true, ExcuseLimit*HeartbeatTimeout + time.Second, 5 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLiveness(ChildLimits)
			l.crowded = func(time.Time) bool { return tc.crowded }
			now := t0.Add(tc.silent)
			l.arrived = func(rmnp.PeerID) time.Time {
				if tc.arrived < 0 {
					return t0.Add(-time.Second) // before the last message taken
				}
				return now.Add(-tc.arrived)
			}
			if tc.starting {
				l.WatchStarting(1, "alpha-2", ChildLimits)
			} else {
				l.WatchFor(1, "alpha-2", ChildLimits)
			}
			l.Peers[1].Model.Last, l.Peers[1].Model.heardAt = t0, t0
			lost := l.Check(now.Add(-CheckInterval), now)
			if got := len(lost) == 1; got != tc.lost {
				t.Errorf("lost %v after %v of silence (last arrival %v ago), want %v", got, tc.silent, tc.arrived, tc.lost)
			}
		})
	}
}

func containsAny(s, alts string) bool {
	for _, a := range strings.Split(alts, "|") {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}
