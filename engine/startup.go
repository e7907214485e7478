package engine

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"syscall"
	"time"

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
	// assignWidth is how many coordinators the submitter dials at once, and
	// forwardWidth how many members a coordinator dials at once.
	assignWidth  = 16
	forwardWidth = 8
	// preflightTimeout bounds the pre-flight dial of a neighbour on one
	// network. A neighbour that is alive but not scheduled (a start-up
	// wave of hundreds of workers on a loaded machine) can take seconds
	// to answer a handshake; a network that drops packets costs this much
	// before the next candidate is tried.
	preflightTimeout = 6 * time.Second
)

// connectRetry connects ep to peer at addr, retrying transient failures
// with backoff and jitter for at most dialRetryBudget.
func connectRetry(ctx context.Context, ep *rmnp.Endpoint, peer rmnp.PeerID, addr string) error {
	deadline := time.Now().Add(dialRetryBudget)
	backoff := dialRetryFirst
	for {
		err := ep.Connect(ctx, peer, addr, rmnp.LinkOptions{Mode: rmnp.Sync, Network: "control"})
		if err == nil || !transientDial(err) || ctx.Err() != nil {
			return err
		}
		wait := time.Duration(rand.Int64N(int64(backoff))) + time.Millisecond
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, dialRetryMax)
	}
}

// transientDial reports whether a dial failed in a way a retry may cure: a
// refused or reset connection, one closed during the handshake, a timeout.
// A bad handshake (wrong secret, wrong run) is not.
func transientDial(err error) bool {
	var ne net.Error
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EAGAIN) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
