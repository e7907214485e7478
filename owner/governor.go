package owner

import (
	"context"
	"errors"
	"time"
)

// ErrNoDrain is returned by a Part's or a Gate's Apply of a Drain decision
// when no drain hook is set: the part stays suspended until it stops.
var ErrNoDrain = errors.New("owner: no drain here: the part stays suspended")

// Governor applies a Policy on this host: every Interval it samples, asks
// its Decider, logs every decision that changes something (or says why the
// part still waits) and applies it.
type Governor struct {
	Policy   Policy
	Interval time.Duration // 0: 5 seconds
	// Sample observes the host (a Sampler's Sample).
	Sample func(context.Context) (Observation, error)
	// Apply carries out a decision (a Part's Apply); an error is logged
	// with the decision and the governor goes on.
	Apply func(Decision) error
	// Log receives every decision worth showing and the error of applying
	// it, if any.
	Log func(Decision, error)
}

// Run governs until ctx ends or the part is stopped.
func (g *Governor) Run(ctx context.Context) error {
	d := NewDecider(g.Policy)
	every := g.Interval
	if every <= 0 {
		every = 5 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	last := ""
	for {
		o, err := g.Sample(ctx)
		if err == nil {
			dec := d.Decide(o)
			if dec.Action != Keep && (dec.Action != Wait || dec.Reason != last) {
				var aerr error
				if g.Apply != nil {
					aerr = g.Apply(dec)
				}
				if g.Log != nil {
					g.Log(dec, aerr)
				}
				last = dec.Reason
			}
			if dec.State == Stopped {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// SampleEvery is how often a governor samples a host under p: every 5
// seconds, or faster when the policy's own bounds are shorter (a test's
// policy of one second), so that a decision never comes later than a
// bound plus one interval.
func SampleEvery(p Policy) time.Duration {
	every := 5 * time.Second
	for _, d := range []time.Duration{p.CPUBusyFor, p.ActiveIdle} {
		if d > 0 && d/2 < every {
			every = max(d/2, 250*time.Millisecond)
		}
	}
	return every
}
