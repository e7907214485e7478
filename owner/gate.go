package owner

import (
	"context"
	"sync"
	"time"
)

// Gate is a part that computes inside the governed process itself (a
// `gridtui worker`): its computing goroutine passes the gate between
// sweeps (Pass), and a Wait or Suspend decision closes the gate, so that
// the goroutine stops there while the rest of the process — its links,
// heartbeats and telemetry — goes on. This is HTCondor's suspend (SIGSTOP
// of the job) moved inside the worker: the part stops computing, but its
// parent still hears from it and can tell the submitter why it is held,
// instead of taking it for lost. A Gate starts closed: the part computes
// once the policy has first said start.
type Gate struct {
	mu     sync.Mutex
	open   chan struct{} // closed while the gate is open
	since  time.Time     // when the gate closed
	reason string        // the decision that closed it
	// Drain, when set, gives the part back (the resilience layer's drain)
	// on a Drain decision; nil: the part stays held (ErrNoDrain).
	Drain func() error
	// Stop, when set, carries out a Stop decision (the worker ends its
	// part); nil: the part stays held.
	Stop func(Decision) error
}

// Undecided is the reason a new gate is closed for: the policy has not
// yet made its first decision.
const Undecided = "the owner policy has not looked at the host yet"

// NewGate returns a closed gate: nothing has been decided yet.
func NewGate() *Gate {
	return &Gate{open: make(chan struct{}), since: time.Now(), reason: Undecided}
}

// Apply carries out d: Wait and Suspend close the gate, Start and Continue
// open it, Drain and Stop call their hooks (the gate stays closed).
func (g *Gate) Apply(d Decision) error {
	switch d.Action {
	case Wait, Suspend:
		g.close(d)
	case Start, Continue:
		g.mu.Lock()
		select {
		case <-g.open:
		default:
			close(g.open)
		}
		g.mu.Unlock()
	case Drain:
		g.close(d)
		if g.Drain == nil {
			return ErrNoDrain
		}
		return g.Drain()
	case Stop:
		g.close(d)
		if g.Stop != nil {
			return g.Stop(d)
		}
	}
	return nil
}

func (g *Gate) close(d Decision) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open, g.since = make(chan struct{}), d.At
		if g.since.IsZero() {
			g.since = time.Now()
		}
	default: // already closed: keep when it closed
	}
	g.reason = d.Action.String() + ": " + d.Reason
}

// Held says whether the gate is closed, since when and by which decision
// ("suspend: owner's CPU load 0.70 ≥ owner_cpu_busy 0.50 for 2m0s").
func (g *Gate) Held() (since time.Time, reason string, held bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		return time.Time{}, "", false
	default:
		return g.since, g.reason, true
	}
}

// Pass returns at once when the gate is open; otherwise it calls held
// every tick (with the time since the gate closed and why) until the gate
// opens or ctx ends, and returns how long it held the caller.
func (g *Gate) Pass(ctx context.Context, tick time.Duration, held func(since time.Time, reason string)) time.Duration {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return 0
	default:
	}
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if since, reason, ok := g.Held(); ok && held != nil {
			held(since, reason)
		}
		g.mu.Lock()
		open = g.open
		g.mu.Unlock()
		select {
		case <-open:
			return time.Since(start)
		case <-ctx.Done():
			return time.Since(start)
		case <-t.C:
		}
	}
}
