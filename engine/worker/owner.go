package worker

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/owner"
)

// holdTick is how often a part held by its host's owner policy refreshes
// its status (the staleness of its halos) for the console.
const holdTick = time.Second

// ownerRule is the owner policy a worker applies to its own part on its
// host (the Boot's Owner): whichever launcher started the worker (SSH, a
// batch step, a local process), the governor runs here, beside the part.
// The part is held between sweeps (owner.Gate) rather than the process
// stopped, so that its links, heartbeats and telemetry go on: the
// submitter hears that it is "suspended by owner" instead of taking it for
// lost, and an asynchronous run's other parts go on with its last halos.
type ownerRule struct {
	gate *owner.Gate
	gov  *owner.Governor
	// out is the worker's stdout after its hello: every decision is an
	// owner line there (deploy.OwnerLine), which the console shows.
	mu  sync.Mutex
	out io.Writer
	// capErr says why the policy's cpu_cap is not applied (nil: it is, or
	// there is none).
	capErr error
	// held is the time the part spent held, in all, and holds how many
	// times it was held; the result header carries both.
	held  time.Duration
	holds int
}

// newOwnerRule sets up the governor of boot's policy (nil when there is
// none) and puts the worker at the lowest priority; a policy that cannot
// be applied on this host (an unknown owner user, not Linux) is an error:
// a desktop whose owner comes first is not used blind.
func newOwnerRule(boot deploy.Boot, cores int, stdout io.Writer, log func(string, ...any), fatal chan<- error, up func(string)) (*ownerRule, error) {
	if boot.Owner == nil {
		return nil, nil
	}
	r := &ownerRule{gate: owner.NewGate(), out: stdout}
	r.gate.Stop = func(d owner.Decision) error {
		select {
		case fatal <- fmt.Errorf("engine: worker %s: stopped by the owner policy: %s", boot.Node, d.Reason):
		default:
		}
		return nil
	}
	logDecision := func(d owner.Decision, err error) {
		r.mu.Lock()
		deploy.WriteOwnerLine(r.out, d.String(), err)
		r.mu.Unlock()
		log("engine: owner policy", "decision", d.Action.String(), "reason", d.Reason, "err", err)
		text := "owner policy: " + d.String()
		if err != nil {
			text += " (" + err.Error() + ")"
		}
		up(text)
	}
	gov, capErr, err := owner.SelfGovernor(*boot.Owner, cores, r.gate, logDecision)
	if err != nil {
		return nil, fmt.Errorf("engine: worker %s: %w", boot.Node, err)
	}
	r.gov, r.capErr = gov, capErr
	return r, nil
}

// run governs until ctx ends: call it after the hello, so that the owner
// lines follow it.
func (r *ownerRule) run(ctx context.Context) {
	if r.capErr != nil {
		r.mu.Lock()
		deploy.WriteOwnerLine(r.out, "cpu_cap not applied", r.capErr)
		r.mu.Unlock()
	}
	r.gov.Run(ctx)
}

// pass is called by the part's computing goroutine after a sweep (Solve's
// report): it returns at once while the policy lets the part compute, and
// holds it, refreshing job's status with why and how stale its halos are,
// while the policy holds the host.
func (r *ownerRule) pass(ctx context.Context, job *jobState) {
	if r == nil {
		return
	}
	last := time.Now()
	decided := false
	took := r.gate.Pass(ctx, holdTick, func(since time.Time, reason string) {
		decided = decided || reason != owner.Undecided
		job.hold(&solve.OwnerHold{Reason: reason, Stale: time.Since(last).Round(time.Second)})
	})
	if took > 0 {
		job.hold(nil)
	}
	if took > 0 && decided { // not the first look at the host: the owner's doing
		r.mu.Lock()
		r.held += took
		r.holds++
		r.mu.Unlock()
	}
}

// total is the time the part was held and how many times, so far.
func (r *ownerRule) total() (time.Duration, int) {
	if r == nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held, r.holds
}

// hold records that the owner policy holds the part (h) or let it go
// (nil), for the next status.
func (j *jobState) hold(h *solve.OwnerHold) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.latest.State.Final() {
		return
	}
	j.latest.Held, j.dirty = h, true
}
