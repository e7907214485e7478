package rmnp

import "sync/atomic"

// readToken is the ownership of a link's frame reader (see readSide): whoever holds
// it reads the connection. Taking it when free is one compare-and-swap and giving
// it back one store, so the per-message path of a Receive that reads for itself
// makes no channel operation (two per message when the token was a channel, about
// a tenth of RMNP's own cost on a small-message round trip). Goroutines that must
// block for it register as waiters and are woken through wake.
type readToken struct {
	held    atomic.Bool
	waiters atomic.Int32
	wake    chan struct{} // signalled on release while someone waits
}

func (t *readToken) init() { t.wake = make(chan struct{}, 1) }

// tryTake takes the token if it is free.
func (t *readToken) tryTake() bool { return t.held.CompareAndSwap(false, true) }

// release gives the token back and wakes a waiter, if any. A waiter registers
// before its last tryTake, and release looks for waiters after its store: one of
// the two always sees the other, so no waiter sleeps on a free token.
func (t *readToken) release() {
	t.held.Store(false)
	if t.waiters.Load() > 0 {
		signal(t.wake)
	}
}

// take blocks until it holds the token (true) or stop is closed (false).
func (t *readToken) take(stop <-chan struct{}) bool {
	for !t.tryTake() {
		t.waiters.Add(1)
		if t.tryTake() {
			t.waiters.Add(-1)
			return true
		}
		select {
		case <-t.wake:
		case <-stop:
			t.waiters.Add(-1)
			return false
		}
		t.waiters.Add(-1)
	}
	return true
}
