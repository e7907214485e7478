package rmnp

import (
	"errors"
	"net"
	"time"
)

// Pending handshakes. An accepted connection is held until its handshake ends
// (at most Config.DialTimeout), and before the MACs are checked its far end is
// anybody who can reach the port: without a bound, idle connections pile up to
// the process's descriptor limit and keep honest peers out. An endpoint holds at
// most Config.MaxPendingHandshakes connections in handshake, and at most
// Config.MaxPendingPerSource from one source address (every Unix-socket peer is
// one source), so that one host cannot take all the places. A connection over
// either bound is closed at once, before anything is read or written.

var (
	errTooManyPending = errors.New("too many pending handshakes")
	errSourcePending  = errors.New("too many pending handshakes from this address")
)

// refusedLogEvery spaces the warnings about refused connections: a flood logs a
// count, not a line per connection.
const refusedLogEvery = time.Second

// sourceOf returns the source address a pending handshake is counted under.
func sourceOf(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return "unix"
}

// beginHandshake registers c as in handshake (Close interrupts it). It fails if
// the endpoint is closed or either bound is reached.
func (e *Endpoint) beginHandshake(c net.Conn) error {
	src := sourceOf(c)
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.isClosed():
		return ErrClosed
	case len(e.handshaking) >= e.cfg.MaxPendingHandshakes:
		return errTooManyPending
	case e.pendingFrom[src] >= e.cfg.MaxPendingPerSource:
		return errSourcePending
	}
	e.handshaking[c] = src
	e.pendingFrom[src]++
	return nil
}

// endHandshake removes c from the pending handshakes. It returns false if the
// endpoint is closed (Close has closed c or will).
func (e *Endpoint) endHandshake(c net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if src, ok := e.handshaking[c]; ok {
		delete(e.handshaking, c)
		if e.pendingFrom[src]--; e.pendingFrom[src] <= 0 {
			delete(e.pendingFrom, src)
		}
	}
	return !e.isClosed()
}

// refused logs a connection closed over a bound, at most once per
// refusedLogEvery with the number refused since the last warning.
func (e *Endpoint) refused(c net.Conn, err error) {
	n := e.refusedN.Add(1)
	now := time.Now().UnixNano()
	last := e.refusedAt.Load()
	if now-last < int64(refusedLogEvery) || !e.refusedAt.CompareAndSwap(last, now) {
		return
	}
	e.refusedN.Add(-n)
	e.log.Warn("rmnp: refused connection", "self", e.cfg.Self, "remote", RemoteName(c), "err", err,
		"refused", n, "pending", e.cfg.MaxPendingHandshakes, "per_source", e.cfg.MaxPendingPerSource)
}
