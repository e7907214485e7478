package owner

import (
	"fmt"
	"time"
)

// Observation is what the owner is doing on a host at one time.
type Observation struct {
	At time.Time
	// Idle is the shortest idle time of the host's interactive sessions
	// (utmp, the tty's last input as `w` shows it); NoSession when nobody
	// is logged in.
	Idle time.Duration
	// OwnerLoad is the CPU the processes that are not gridtui's used since
	// the last observation, in cores.
	OwnerLoad float64
	// FreeMemory is the host's available memory in bytes (0: unknown).
	FreeMemory uint64
}

// NoSession is the Idle of a host with no interactive session.
const NoSession = time.Duration(1<<63 - 1)

// Action is what a Decision asks of the part on a host.
type Action int

// Actions, HTCondor's states in gridtui's words.
const (
	Wait     Action = iota // not started: the owner needs the host
	Start                  // start (or keep running)
	Suspend                // SIGSTOP the part's computation
	Continue               // SIGCONT it
	Drain                  // give the part back: move it to a spare
	Stop                   // stop the worker
	Keep                   // nothing changes
)

var actionNames = [...]string{"wait", "start", "suspend", "continue", "drain", "stop", "keep"}

func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return fmt.Sprintf("action(%d)", int(a))
	}
	return actionNames[a]
}

// State is where a host's part is in the policy.
type State int

// States of a part.
const (
	Idle      State = iota // not started
	Running                // computing
	Suspended              // stopped by the owner's activity
	Draining               // being moved to a spare
	Stopped                // gone
)

var stateNames = [...]string{"idle", "running", "suspended by owner", "draining", "stopped"}

func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// Decision is one step of the policy, with the reason a log and the views
// show.
type Decision struct {
	At     time.Time
	Action Action
	State  State // the state after the action
	Reason string
}

func (d Decision) String() string {
	return d.At.Format("15:04:05") + " " + d.Action.String() + ": " + d.Reason
}

// Decider applies a Policy to a host's observations, one after the other.
// It is not safe for concurrent use.
type Decider struct {
	p         Policy
	state     State
	since     time.Time // when state was entered
	busySince time.Time // when the owner's load rose above OwnerCPUBusy (zero: not busy)
}

// NewDecider starts in state Idle (not started).
func NewDecider(p Policy) *Decider { return &Decider{p: p} }

// State is the part's state after the last decision.
func (d *Decider) State() State { return d.state }

// Drained records that the drain the last Drain decision asked for is done
// (or that the worker stopped): the part is gone from this host.
func (d *Decider) Drained(at time.Time) { d.enter(Stopped, at) }

func (d *Decider) enter(s State, at time.Time) {
	if d.state != s {
		d.state, d.since = s, at
	}
}

// Decide takes one observation and says what to do.
func (d *Decider) Decide(o Observation) Decision {
	if o.OwnerLoad >= d.p.OwnerCPUBusy {
		if d.busySince.IsZero() {
			d.busySince = o.At
		}
	} else {
		d.busySince = time.Time{}
	}
	act, reason := d.step(o)
	switch act {
	case Start:
		d.enter(Running, o.At)
	case Suspend:
		d.enter(Suspended, o.At)
	case Continue:
		d.enter(Running, o.At)
	case Drain:
		d.enter(Draining, o.At)
	case Stop:
		d.enter(Stopped, o.At)
	}
	return Decision{At: o.At, Action: act, State: d.state, Reason: reason}
}

func (d *Decider) step(o Observation) (Action, string) {
	switch d.state {
	case Idle:
		if why := d.notFree(o, d.p.IdleToStart); why != "" {
			return Wait, why
		}
		return Start, d.freeReason(o, d.p.IdleToStart)
	case Running:
		if why := d.ownerBack(o); why != "" {
			return Suspend, why
		}
		return Keep, "owner away"
	case Suspended:
		if why := d.notFree(o, d.p.IdleToContinue); why == "" {
			return Continue, d.freeReason(o, d.p.IdleToContinue)
		}
		if held := o.At.Sub(d.since); held >= d.p.MaxSuspend {
			return Drain, fmt.Sprintf("suspended %s ≥ max_suspend %s: giving the part back", round(held), d.p.MaxSuspend)
		}
		return Keep, "owner still here: " + d.notFree(o, d.p.IdleToContinue)
	case Draining:
		if held := o.At.Sub(d.since); held >= d.p.MaxVacate {
			return Stop, fmt.Sprintf("draining %s ≥ max_vacate %s: stopping the worker", round(held), d.p.MaxVacate)
		}
		return Keep, "draining"
	}
	return Keep, "stopped"
}

// ownerBack says why a running part must suspend, or "".
func (d *Decider) ownerBack(o Observation) string {
	if w, ok := d.p.InOwnerHours(o.At); ok {
		return "owner hours " + w.String()
	}
	if o.Idle < d.p.ActiveIdle {
		return fmt.Sprintf("owner active: session idle %s < active_idle %s", round(o.Idle), d.p.ActiveIdle)
	}
	if !d.busySince.IsZero() && o.At.Sub(d.busySince) >= d.p.CPUBusyFor {
		return fmt.Sprintf("owner's CPU load %.2f ≥ owner_cpu_busy %.2f for %s", o.OwnerLoad, d.p.OwnerCPUBusy, round(o.At.Sub(d.busySince)))
	}
	if d.p.MinFreeMemory > 0 && o.FreeMemory > 0 && o.FreeMemory < d.p.MinFreeMemory {
		return fmt.Sprintf("free memory %s < min_free_memory %s", bytesText(o.FreeMemory), bytesText(d.p.MinFreeMemory))
	}
	return ""
}

// notFree says why gridtui may not (re)start with the given idle bound, or
// "".
func (d *Decider) notFree(o Observation, idle time.Duration) string {
	if w, ok := d.p.InOwnerHours(o.At); ok {
		return "owner hours " + w.String()
	}
	if o.Idle < idle {
		return fmt.Sprintf("session idle %s < %s", round(o.Idle), idle)
	}
	if o.OwnerLoad > d.p.OwnerCPUIdle {
		return fmt.Sprintf("owner's CPU load %.2f > owner_cpu_idle %.2f", o.OwnerLoad, d.p.OwnerCPUIdle)
	}
	if d.p.MinFreeMemory > 0 && o.FreeMemory > 0 && o.FreeMemory < d.p.MinFreeMemory {
		return fmt.Sprintf("free memory %s < min_free_memory %s", bytesText(o.FreeMemory), bytesText(d.p.MinFreeMemory))
	}
	return ""
}

func (d *Decider) freeReason(o Observation, idle time.Duration) string {
	s := "no interactive session"
	if o.Idle != NoSession {
		s = fmt.Sprintf("session idle %s ≥ %s", round(o.Idle), idle)
	}
	return fmt.Sprintf("%s, owner's CPU load %.2f ≤ %.2f", s, o.OwnerLoad, d.p.OwnerCPUIdle)
}

func round(d time.Duration) time.Duration {
	if d == NoSession {
		return d
	}
	return d.Round(time.Second)
}

func bytesText(n uint64) string {
	return fmt.Sprintf("%d MiB", n>>20)
}
