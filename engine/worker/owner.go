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
	// grace is the policy's sync_grace: a part of a synchronous or hybrid
	// run held this long asks to be drained.
	grace time.Duration
	// wantDrain is the reason of the policy's last Drain decision (held
	// for max_suspend), until a part is drained for it; asked is the
	// attempt whose drain was asked (0: none).
	wantDrain string
	asked     uint64
	// ask sends a drain request of job's part up the tree (node.askDrain).
	ask func(ctx context.Context, job *jobState, why string) error
}

// newOwnerRule sets up the governor of boot's policy (nil when there is
// none) and puts the worker at the lowest priority; a policy that cannot
// be applied on this host (an unknown owner user, not Linux) is an error:
// a desktop whose owner comes first is not used blind.
func newOwnerRule(boot deploy.Boot, cores int, stdout io.Writer, log func(string, ...any), fatal chan<- error, up func(string)) (*ownerRule, error) {
	if boot.Owner == nil {
		return nil, nil
	}
	r := &ownerRule{gate: owner.NewGate(), out: stdout, grace: boot.Owner.SyncGrace}
	r.gate.Drain = r.onDrain
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
		if why := r.drainWhy(job, since, reason); why != "" {
			r.askDrain(ctx, job, why)
		}
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

// onDrain carries out the policy's Drain decision (the gate's hook): the
// part gives itself back from its holding loop (pass), which knows its
// attempt; a worker between runs has nothing to drain.
func (r *ownerRule) onDrain() error {
	_, reason, _ := r.gate.Held()
	r.mu.Lock()
	r.wantDrain = reason
	r.mu.Unlock()
	return nil
}

// drainWhy says why job's held part should be drained now, or "": the
// policy decided so (held for max_suspend), or the run is synchronous or
// hybrid — holding the part stalls the others — and it has been held for
// sync_grace. A part is drained at most once per attempt.
func (r *ownerRule) drainWhy(job *jobState, since time.Time, reason string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.ask == nil || r.asked == job.task.Run || reason == owner.Undecided:
		return ""
	case r.wantDrain != "":
		return r.wantDrain
	case job.task.Scheme != solve.Asynchronous && time.Since(since) >= r.grace:
		return fmt.Sprintf("%s run held %s ≥ sync_grace %s (%s)", job.task.Scheme, time.Since(since).Round(time.Second), r.grace, reason)
	}
	return ""
}

// askDrain asks the submitter to drain job's part (msgDrain) and says so
// in the worker's owner lines, before the request: the submitter may stop
// this worker as soon as it has it, and the line would then never be
// written. A request that cannot be sent is said so and asked again at
// the next tick.
func (r *ownerRule) askDrain(ctx context.Context, job *jobState, why string) {
	r.mu.Lock()
	deploy.WriteOwnerLine(r.out, time.Now().Format(time.TimeOnly)+" asked to drain: "+why, nil)
	r.mu.Unlock()
	err := r.ask(ctx, job, why)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.asked, r.wantDrain = job.task.Run, ""
		return
	}
	deploy.WriteOwnerLine(r.out, time.Now().Format(time.TimeOnly)+" drain request not sent, asked again at the next tick", err)
}

// setAsk sets how the rule sends a drain request (nil rule: no policy).
func (r *ownerRule) setAsk(ask func(ctx context.Context, job *jobState, why string) error) {
	if r != nil {
		r.ask = ask
	}
}

// askDrain sends job's drain request to its parent, which forwards it to
// the submitter (msgDrain); the rule's owner line says so (and so the
// Sites view and the event log).
func (n *node) askDrain(ctx context.Context, job *jobState, why string) error {
	m, err := EncodeMsg(MsgDrain, DrainRequest{Node: job.task.Node, Why: why, Run: job.task.Run})
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, postTimeout)
	defer cancel()
	if err := n.send(sctx, job.parent, m); err != nil {
		return fmt.Errorf("engine: worker %s: ask to drain: %w", job.task.Node, err)
	}
	return nil
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
