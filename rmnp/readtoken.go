package rmnp

import "sync/atomic"

// readToken is the ownership of a link's frame reader (see readSide): whoever holds
// it reads the connection. Its state word also counts the Receives that want the
// read side and those that have finished wanting it, so that a Receive reading
// for itself registers and takes the reader with one compare-and-swap and gives it
// back with one atomic add: every locked instruction counts on the per-message
// path (they were the bulk of direct's cost in the profile: docs/bench/rmnp.md).
// Goroutines that must block for the token register as waiters and are woken
// through wake.
type readToken struct {
	// state: bit 31 = held; bits 0–30 = want (Receives waiting for or holding
	// the token); bits 32–63 = gen (Receives that stopped wanting it, wrapping).
	state   atomic.Uint64
	waiters atomic.Int32
	wake    chan struct{} // signalled on release while someone waits
}

const (
	tokHeld = 1 << 31
	tokWant = 1
	tokGen  = 1 << 32
	// tokDone ends a wanting holder: held cleared, want−1, gen+1 (held is
	// set and want ≥ 1, so neither subtraction borrows).
	tokDone = tokGen - tokWant - tokHeld
	// tokUnwant ends a want without the token: want−1, gen+1.
	tokUnwant = tokGen - tokWant
	// tokRelease clears held (two's complement: adding it subtracts tokHeld).
	tokRelease = ^uint64(tokHeld - 1)
)

func (t *readToken) init() { t.wake = make(chan struct{}, 1) }

// want returns the number of Receives waiting for or holding the token.
func (t *readToken) want() uint32 { return uint32(t.state.Load()) &^ tokHeld }

// gen returns the number of Receives that have stopped wanting the token.
func (t *readToken) gen() uint32 { return uint32(t.state.Load() >> 32) }

// tryTake takes the token if it is free.
func (t *readToken) tryTake() bool { return t.tryAdd(tokHeld) }

// tryTakeWanting registers a Receive that wants the read side and takes the
// token, if it is free, in one step; nothing changes if it is held.
func (t *readToken) tryTakeWanting() bool { return t.tryAdd(tokHeld + tokWant) }

func (t *readToken) tryAdd(d uint64) bool {
	for {
		s := t.state.Load()
		if s&tokHeld != 0 {
			return false
		}
		if t.state.CompareAndSwap(s, s+d) {
			return true
		}
	}
}

// release gives the token back and wakes a waiter, if any. A waiter registers
// before its last tryTake, and release looks for waiters after its store: one of
// the two always sees the other, so no waiter sleeps on a free token.
func (t *readToken) release() { t.add(tokRelease) }

// releaseWanting undoes tryTakeWanting: the token is released and the want ends.
func (t *readToken) releaseWanting() { t.add(tokDone) }

func (t *readToken) add(d uint64) {
	t.state.Add(d)
	if t.waiters.Load() > 0 {
		Signal(t.wake)
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
