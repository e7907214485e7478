package solve

import "time"

// DefaultSwitchPeriod is the initial length of an asynchronous section of the
// switch detector.
const DefaultSwitchPeriod = 50 * time.Millisecond

// SwitchTimer is the local timer of the AIAC chapter's detector: a node runs
// asynchronous iterations until the timer is due, then a synchronous section
// (two synchronous iterations and a global test). The chapter lets the period
// change with the results of the sections: it doubles while the global σ is
// far above ε (fewer useless sections) and halves near it (faster detection),
// within [Min, Max].
type SwitchTimer struct {
	Period, Min, Max time.Duration
	start            time.Time
}

// NewSwitchTimer starts a timer of period (DefaultSwitchPeriod if ≤ 0).
func NewSwitchTimer(period time.Duration, now time.Time) *SwitchTimer {
	if period <= 0 {
		period = DefaultSwitchPeriod
	}
	return &SwitchTimer{Period: period, Min: max(period/8, time.Millisecond), Max: 8 * period, start: now}
}

// Due reports whether the asynchronous section is over.
func (t *SwitchTimer) Due(now time.Time) bool { return now.Sub(t.start) >= t.Period }

// Restart begins a new asynchronous section after a synchronous one that did
// not stop the run, adapting the period to how far σ is from ε.
func (t *SwitchTimer) Restart(now time.Time, sigma, eps float64) {
	if sigma > 100*eps {
		t.Period = min(2*t.Period, t.Max)
	} else {
		t.Period = max(t.Period/2, t.Min)
	}
	t.start = now
}

// SectionVote is what a synchronous section reduces along the chain: the
// conjunction of the local tests of its second iteration, whether some rank
// reached its iteration limit, and the largest σ.
type SectionVote struct {
	OK        bool
	Exhausted bool
	Sigma     float64
}

// And combines two ranks' votes.
func (v SectionVote) And(o SectionVote) SectionVote {
	return SectionVote{OK: v.OK && o.OK, Exhausted: v.Exhausted || o.Exhausted, Sigma: max(v.Sigma, o.Sigma)}
}

// Stop reports whether the run ends after the section: every rank's local
// test passed in the same synchronous iteration (global convergence), or a
// rank cannot iterate any more.
func (v SectionVote) Stop() bool { return v.OK || v.Exhausted }

func (v SectionVote) flags() uint64 {
	var f uint64
	if v.OK {
		f |= 1
	}
	if v.Exhausted {
		f |= 2
	}
	return f
}

func voteOf(flags uint64, sigma float64) SectionVote {
	return SectionVote{OK: flags&1 != 0, Exhausted: flags&2 != 0, Sigma: sigma}
}
