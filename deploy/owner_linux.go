package deploy

import (
	"context"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/owner"
)

// governLocal applies h's owner policy to the local worker of process
// group pgid until the worker is gone: this host is a desktop whose owner
// comes first (package owner). Every decision is an Event of PhaseOwner
// with its reason, which the Sites view shows and the run's log keeps. A
// policy that says wait holds the worker stopped until it says start.
func governLocal(w *Worker, pgid int, h inventory.Host, ev *emitter) {
	if h.Owner == nil {
		return
	}
	if err := owner.Lower(pgid, h.Owner.CPUCap, max(h.Cores, 1)); err != nil {
		ev.emit(h.Name, PhaseOwner, 1, "cpu_cap not applied", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		select {
		case <-w.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	w.resume = func() { // the worker is being stopped: let it read its EOF
		cancel()
		<-ended
		part := owner.Part{Pgid: pgid}
		part.Apply(owner.Decision{Action: owner.Continue})
	}
	s := owner.NewSampler()
	s.Exclude(pgid)
	part := &owner.Part{Pgid: pgid, StopGrace: 5 * time.Second}
	g := &owner.Governor{Policy: *h.Owner, Sample: s.Sample, Apply: part.Apply,
		Log: func(d owner.Decision, err error) { ev.emit(h.Name, PhaseOwner, 1, d.String(), err) }}
	go func() {
		defer close(ended)
		g.Run(ctx)
	}()
}
