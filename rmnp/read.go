package rmnp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// readSide arbitrates who reads a link's connection. The background reader
// (readLoop) reads whenever no Receive wants to; a Receive blocked on the link's peer
// takes the read side over and reads its message itself, so that the kernel wakes
// the receiving goroutine directly instead of a reader that then hands the message
// over (one goroutine switch less per message on the latency path).
type readSide struct {
	tok readToken // holding it = owning l.fr
	// wantGen packs two counters so that a Receive updates both with one atomic
	// operation: the low 32 bits count the Receives waiting for or holding tok
	// (want), the high 32 bits count those that have finished (gen).
	wantGen atomic.Uint64
	resume  *time.Timer   // the background reader's pause timer
	now     chan struct{} // resume at once (Wait, NoWait polls)
	mu      sync.Mutex    // guards the fields below and the read deadline
	bgHolds atomic.Bool   // the background reader holds tok (written under mu)
	kick    bool          // a past deadline was set to make the background reader yield
	cancel  bool          // a past deadline was set because the reading Receive's ctx ended
	stop    bool          // a past deadline was set to make the reading Receive re-check
	self    bool          // a Receive holds tok and reads
	// selfDone is set (by the holder of tok, i.e. the reading Receive) when the
	// frame it just read completed the posting of a Receive reading for itself:
	// readFor then knows its message is there without locking the peer.
	selfDone bool
	rDone    <-chan struct{}
	watch    <-chan struct{}
	watchFn  func() bool
}

// want returns the number of Receives waiting for or holding tok.
func (rd *readSide) want() uint32 { return uint32(rd.wantGen.Load()) }

// gen returns the number of Receives that have stopped wanting the read side.
func (rd *readSide) gen() uint32 { return uint32(rd.wantGen.Load() >> 32) }

// resumeDelay is how long the background reader stays off after the last Receive
// that read for itself: it then picks up unexpected messages, heartbeats and
// failures again. Wait and polling Receives (NoWait) resume it at once.
const resumeDelay = 5 * time.Millisecond

var (
	errYield     = errors.New("rmnp: read side handed to a Receive")
	errCancelled = errors.New("rmnp: receive cancelled")
	pastDeadline = time.Unix(1, 0)
)

// interrupted is frameReader.retry: it tells a read that timed out whether the
// timeout was a kick (yield or retry), a cancellation, or real (heartbeat).
func (l *link) interrupted(boundary bool) (bool, error) {
	rd := &l.rd
	rd.mu.Lock()
	defer rd.mu.Unlock()
	switch {
	case rd.stop:
		rd.stop = false
		l.restoreDeadline()
		if boundary {
			return false, errCancelled
		}
		return true, nil
	case rd.cancel:
		rd.cancel = false
		l.restoreDeadline()
		if boundary {
			return false, errCancelled
		}
		return false, fmt.Errorf("receive from peer %d cancelled mid-frame: %w", l.p.id, context.Canceled)
	case rd.kick:
		rd.kick = false
		l.restoreDeadline()
		if boundary && rd.bgHolds.Load() {
			return false, errYield
		}
		return true, nil
	}
	return false, nil
}

// restoreDeadline resets the read deadline to the heartbeat's (or none). Called with
// rd.mu held.
func (l *link) restoreDeadline() {
	if hb := l.e.cfg.HeartbeatInterval; hb > 0 {
		_ = l.conn.SetReadDeadline(time.Now().Add(3 * hb))
	} else {
		_ = l.conn.SetReadDeadline(time.Time{})
	}
}

// heartbeatDeadline arms the heartbeat timeout before a frame, unless a kick or a
// cancellation is pending.
func (l *link) heartbeatDeadline() {
	if l.e.cfg.HeartbeatInterval <= 0 {
		return
	}
	l.rd.mu.Lock()
	if !l.rd.kick && !l.rd.cancel && !l.rd.stop {
		l.restoreDeadline()
	}
	l.rd.mu.Unlock()
}

// readLoop is the background reader: it reads frames whenever no Receive has taken
// the read side over, until an error tears the link down.
func (l *link) readLoop() {
	defer l.e.wg.Done()
	rd := &l.rd
	for {
		if !rd.tok.take(l.closed) {
			return
		}
		rd.mu.Lock()
		rd.bgHolds.Store(true)
		rd.mu.Unlock()
		err := l.readFrames()
		rd.mu.Lock()
		rd.bgHolds.Store(false)
		rd.mu.Unlock()
		rd.tok.release()
		if err != errYield {
			l.fail(l.readErr(err))
			return
		}
		// Wait until no Receive has wanted the read side for resumeDelay: an
		// iteration that receives every step keeps reading for itself, without
		// waking this goroutine per message.
		for gen := rd.gen(); ; {
			rd.resume.Reset(resumeDelay)
			select {
			case <-rd.resume.C:
			case <-rd.now:
				rd.resume.Stop()
				gen = rd.gen()
			case <-l.closed:
				rd.resume.Stop()
				return
			}
			g := rd.gen()
			if rd.want() == 0 && g == gen {
				break
			}
			gen = g
		}
	}
}

// readFrames reads and dispatches frames until a Receive wants the read side
// (errYield) or an error.
func (l *link) readFrames() error {
	for {
		if l.rd.want() > 0 {
			return errYield
		}
		l.heartbeatDeadline()
		if err := l.readOne(true); err != nil {
			return err
		}
		if l.fr.buffered() == 0 && l.rd.want() == 0 {
			// Let a Receive just woken run before this goroutine's next read
			// (usually EAGAIN) delays it.
			runtime.Gosched()
		}
	}
}

// readOne reads one frame and dispatches it. background says whether the caller is
// readLoop (which may pause for buffer space) or a Receive (which must not: it is
// the one that would free the space).
func (l *link) readOne(background bool) error {
	h, err := l.fr.next()
	if err != nil {
		return err
	}
	return l.dispatch(h, background)
}

// dispatch handles a frame whose header has been read and checked.
func (l *link) dispatch(h *header, background bool) error {
	l.c.bytesRecv.Add(h.size())
	switch h.typ() {
	case typePing:
		return nil
	case typeGoAway:
		return ErrPeerClosed
	}
	return l.p.deliver(l, h, background)
}

func (l *link) readErr(err error) error {
	if l.isDown() {
		return l.err
	}
	if isTimeout(err) {
		return fmt.Errorf("no frame for %v (heartbeat): %w", 3*l.e.cfg.HeartbeatInterval, err)
	}
	return err
}

// wantRead registers a Receive that wants the read side and kicks the background
// reader out of its blocking read.
func (l *link) wantRead() {
	rd := &l.rd
	rd.wantGen.Add(1)
	// The background reader sets bgHolds before it checks want (readFrames), and
	// this checks bgHolds after raising want: one of the two sees the other, so
	// the lock is only needed when the reader may be blocked in a read.
	if !rd.bgHolds.Load() {
		return
	}
	rd.mu.Lock()
	if rd.bgHolds.Load() && !rd.kick {
		rd.kick = true
		_ = l.conn.SetReadDeadline(pastDeadline)
	}
	rd.mu.Unlock()
}

// unwantRead undoes wantRead; the last one lets the background reader resume.
func (l *link) unwantRead() {
	l.rd.wantGen.Add(1<<32 - 1) // gen+1, want-1 (want ≥ 1: the carry goes to gen)
}

// readFor reads frames from the Receive r's goroutine (which holds rd.tok) until
// its message is there, ctx ends, or the link fails (then it is torn down).
func (l *link) readFor(ctx context.Context, r *receiveOp) {
	l.beginSelfRead(ctx)
	var err error
	if !r.arrived() {
		err = l.readUntil(ctx, r)
	}
	l.endSelfRead(err)
}

// stopSelfRead makes a Receive reading l return to its wait loop at the next frame
// boundary (another link to the peer came up: the message may arrive there).
func (l *link) stopSelfRead() {
	rd := &l.rd
	rd.mu.Lock()
	if rd.self && !rd.stop {
		rd.stop = true
		_ = l.conn.SetReadDeadline(pastDeadline)
	}
	rd.mu.Unlock()
}

// armReadWatch makes a cancellation of ctx interrupt the Receive reading the link;
// the registration is reused while the same context is used. Called with rd.mu held.
func (l *link) armReadWatch(ctx context.Context) {
	rd := &l.rd
	d := ctx.Done()
	if d == nil || d == rd.watch {
		return
	}
	if rd.watchFn != nil {
		rd.watchFn()
	}
	rd.watch = d
	rd.watchFn = context.AfterFunc(ctx, func() {
		rd.mu.Lock()
		if rd.rDone == d {
			rd.cancel = true
			_ = l.conn.SetReadDeadline(pastDeadline)
		}
		rd.mu.Unlock()
	})
}
