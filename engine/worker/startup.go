package worker

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// Start-up at scale. The submitter dials only the coordinators, a few at a
// time, and each coordinator dials the members of its group (at most 32), a
// few at a time: connections come in waves down the hierarchy, and no
// listener ever sees more than a group's worth at once, far below the
// kernel's listen backlog (somaxconn; Go listens with it). What a wave can
// still meet on a loaded machine — a listener whose accept queue is full
// (the connection is refused or reset), a handshake that times out — is
// transient: the dial is retried with exponential backoff and full jitter,
// so that the retries of many dialers do not come back in step.
const (
	// dialRetryFirst is the first backoff; each retry doubles it up to
	// dialRetryMax.
	dialRetryFirst = 50 * time.Millisecond
	dialRetryMax   = time.Second
	// dialRetryBudget bounds the time spent retrying one address.
	dialRetryBudget = 20 * time.Second
	// AssignWidth is how many coordinators the submitter dials at once, and
	// forwardWidth how many members a coordinator dials at once.
	AssignWidth  = 16
	ForwardWidth = 8
	// preflightTimeout bounds the first pre-flight dial of a neighbour on
	// one network. A neighbour that is alive but not scheduled (a start-up
	// wave of hundreds of workers on a loaded machine) can take seconds
	// to answer a handshake; a network that drops packets costs this much
	// before the next candidate is tried. When every candidate failed in a
	// way a retry may cure, the pre-flight is tried again after a backoff,
	// each round giving every candidate twice as long, up to
	// preflightTimeoutMax (a worker's rmnp DialTimeout, which bounds the
	// accepting side's handshake too), until linkBudget after the task
	// arrived.
	preflightTimeout    = 6 * time.Second
	preflightTimeoutMax = 20 * time.Second
	// linkBudget bounds a worker's start-up: the pre-flight of the
	// neighbours it dials, retries included. The neighbours it waits for
	// are given linkTimeout, longer, since their dialers' tasks may
	// arrive in a later wave.
	linkBudget  = 60 * time.Second
	linkTimeout = linkBudget + 15*time.Second
)

// connectRetry connects ep to peer at addr, retrying transient failures
// with backoff and jitter for at most dialRetryBudget, attempts included
// (a worker's handshake may take up to its DialTimeout).
func connectRetry(ctx context.Context, ep *rmnp.Endpoint, peer rmnp.PeerID, addr string) error {
	deadline := time.Now().Add(dialRetryBudget)
	pause := dialRetryFirst
	for {
		actx, cancel := context.WithDeadline(ctx, deadline)
		err := ep.Connect(actx, peer, addr, rmnp.LinkOptions{Mode: rmnp.Sync, Network: "control"})
		cancel()
		if err == nil || !transientDial(err) || ctx.Err() != nil {
			return err
		}
		var wait time.Duration
		wait, pause = backoff(pause)
		if time.Now().Add(wait).After(deadline) || !sleepCtx(ctx, wait) {
			return err
		}
	}
}

// backoff returns a full-jitter wait under the current backoff and the
// next backoff (doubled up to dialRetryMax).
func backoff(cur time.Duration) (wait, next time.Duration) {
	return time.Duration(rand.Int64N(int64(cur))) + time.Millisecond, min(2*cur, dialRetryMax)
}

// sleepCtx waits for d or until ctx ends, reporting whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// preflightRetry runs probe.Preflight over a neighbour's candidate routes
// again and again while every candidate fails transiently (refused, reset,
// closed or timed out: a neighbour still starting on a loaded machine),
// with backoff and full jitter between rounds and a per-candidate timeout
// that doubles each round, until ctx's deadline (the start-up's). It
// returns the last round's outcome and how many rounds ran.
func preflightRetry(ctx context.Context, routes []probe.Route, dial func(context.Context, probe.Route) error) (probe.Route, []string, int, error) {
	timeout, pause := preflightTimeout, dialRetryFirst
	for round := 1; ; round++ {
		r, warns, err := probe.Preflight(ctx, routes, dial, timeout)
		if err == nil || ctx.Err() != nil || !allTransient(err) {
			return r, warns, round, err
		}
		var wait time.Duration
		wait, pause = backoff(pause)
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait+time.Second).After(dl) {
			return r, warns, round, err
		}
		if !sleepCtx(ctx, wait) {
			return r, warns, round, err
		}
		timeout = min(2*timeout, preflightTimeoutMax)
	}
}

// allTransient reports whether every dial error Preflight joined in err is
// one a retry may cure.
func allTransient(err error) bool {
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		return transientDial(err)
	}
	n := 0
	for _, e := range joined.Unwrap() {
		if errors.Is(e, probe.ErrUnreachable) {
			continue
		}
		if !transientDial(e) {
			return false
		}
		n++
	}
	return n > 0
}

// transientDial reports whether a dial failed in a way a retry may cure: a
// refused or reset connection, one closed during the handshake, a timeout.
// A bad handshake (wrong secret) is not; a peer of another attempt of this
// run is (AttemptRunID).
func transientDial(err error) bool {
	var ne net.Error
	timedOut := errors.Is(err, net.ErrClosed) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	if errors.Is(err, rmnp.ErrOtherRun) {
		// The neighbour's data endpoint is of another attempt of this run
		// (AttemptRunID): the end of the one before, or this one's task,
		// has yet to reach it.
		return true
	}
	if errors.Is(err, rmnp.ErrAuth) || errors.Is(err, rmnp.ErrVersion) {
		// rmnp says a handshake that timed out (its peer not scheduled)
		// failed authentication too: only that one is worth a retry.
		return timedOut
	}
	return timedOut || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EAGAIN) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// MembersYield turns yieldMembers on (the scale trials turn it off to
// compare).
var MembersYield = true

// YieldMembers lets the coordinators of a crowded local run go first: when
// the run has more workers than crowdFactor per CPU of this host (a
// thousand one-core workers on a few cores), every worker that coordinates
// nothing is made to give way to those that do (deploy's Worker.Yield,
// which only local workers heed), and the coordinators keep their priority.
// A coordinator's fair share of such a host is too small to take its
// members' statuses and heartbeats as they come, and the silences it
// measures then grow with its backlog; a member needs far less than its
// share to keep up with its own messages. Smaller runs are left as they are:
// their processes share the host evenly.
func YieldMembers(groups []jobs.Group, workers map[string]*deploy.Worker) {
	if !MembersYield || len(workers) <= crowdFactor*runtime.NumCPU() {
		return
	}
	coords := map[string]bool{}
	for _, g := range groups {
		coords[g.Coordinator] = true
	}
	for name, w := range workers {
		w.Yield(!coords[name])
	}
}
