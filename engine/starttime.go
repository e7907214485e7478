package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/deploy"
)

// StartTimeError is the error of a run whose wall time ran out while its
// workers were starting: no host failed, the run was given too little time
// (a wall time of 1ms, or a batch allocation still queued). Err holds the
// hosts' own errors.
type StartTimeError struct {
	WallTime time.Duration
	Hosts    int
	Err      error
}

// Error says that the wall time ran out while starting, and what to change.
func (e *StartTimeError) Error() string {
	return fmt.Sprintf("engine: the wall time (%s) ran out while the %d %s were starting: no host failed; give the run more time (--wall-time, wall_time in the job file)",
		e.WallTime, e.Hosts, plural(e.Hosts, "worker", "workers"))
}

// Unwrap returns the hosts' errors and context.DeadlineExceeded.
func (e *StartTimeError) Unwrap() []error { return []error{e.Err, context.DeadlineExceeded} }

// ranOut reports whether start, the context of starting the workers, ended
// with its own deadline (the wall time) while the run's ctx still runs.
func ranOut(start, ctx context.Context) bool {
	return errors.Is(start.Err(), context.DeadlineExceeded) && ctx.Err() == nil
}

// wallTimeEvents passes events on to next, a host's failure that only the
// end of the wall time while starting caused turned into a stop saying so:
// no view marks that host failed.
func wallTimeEvents(next func(deploy.Event), start context.Context, wall time.Duration) func(deploy.Event) {
	return func(ev deploy.Event) {
		if ev.Phase == deploy.PhaseFailed && ev.Err != nil && errors.Is(start.Err(), context.DeadlineExceeded) {
			ev.Phase, ev.Err = deploy.PhaseStopped, nil
			ev.Detail = fmt.Sprintf("not started: the run's wall time (%s) ran out while starting", wall)
		}
		if next != nil {
			next(ev)
		}
	}
}
