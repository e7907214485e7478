package rmnp

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	tok readToken // holding it = owning l.fr; it also counts the wanting Receives
	// selfSeq is odd while a Receive holding tok reads for itself; it grows by
	// one when such a read begins and when it ends, so that a cancellation or a
	// stop aimed at one self-read is recognised as stale by the next reader
	// (interrupted), and beginning and ending a self-read take no lock.
	selfSeq atomic.Uint32
	resume  *time.Timer   // the background reader's pause timer
	now     chan struct{} // resume at once (Wait, NoWait polls)
	mu      sync.Mutex    // guards the fields below and the read deadline
	bgHolds atomic.Bool   // the background reader holds tok (written under mu)
	// flagged is set while cancel or stop is (written under mu): ending a
	// self-read locks mu only then.
	flagged atomic.Bool
	kick    bool   // a past deadline was set to make the background reader yield
	cancel  bool   // a past deadline was set because the reading Receive's ctx ended
	stop    bool   // a past deadline was set to make the reading Receive re-check
	flagSeq uint32 // the selfSeq cancel or stop was set for
	// selfDone is set (by the holder of tok, i.e. the reading Receive) when the
	// frame it just read completed the posting of a Receive reading for itself:
	// readFor then knows its message is there without locking the peer. For a
	// direct Receive the posting is also withdrawn then, its length in selfN.
	selfDone bool
	selfN    int
	// watch is the Done channel of the context of the last Receive that read for
	// itself, watched by watchFn (see armReadWatch). Written by holders of tok
	// under mu; read by them without it.
	watch   <-chan struct{}
	watchFn func() bool
}

// want returns the number of Receives waiting for or holding tok.
func (rd *readSide) want() uint32 { return rd.tok.want() }

// gen returns the number of Receives that have stopped wanting the read side.
func (rd *readSide) gen() uint32 { return rd.tok.gen() }

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
// timeout was a kick (yield or retry), a cancellation, a stop, or real (heartbeat).
// A cancellation or stop set for an earlier self-read (flagSeq is not the current
// selfSeq: it ended before the flag was seen) is stale and only retried.
func (l *link) interrupted(boundary bool) (bool, error) {
	rd := &l.rd
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.cancel || rd.stop {
		current := rd.flagSeq == rd.selfSeq.Load()
		cancel := rd.cancel && !rd.stop // a stop finishes the frame first
		rd.clearFlags()
		l.restoreDeadline()
		switch {
		case !current:
			return true, nil
		case boundary:
			return false, errCancelled
		case !cancel: // stop: finish the frame
			return true, nil
		}
		return false, fmt.Errorf("receive from peer %d cancelled mid-frame: %w", l.p.id, context.Canceled)
	}
	if rd.kick {
		rd.kick = false
		l.restoreDeadline()
		if boundary && rd.bgHolds.Load() {
			return false, errYield
		}
		return true, nil
	}
	return false, nil
}

// flag sets cancel or stop for the self-read now in progress, if any, and makes
// its read time out. Called with rd.mu held.
func (l *link) flag(cancel bool) {
	rd := &l.rd
	seq := rd.selfSeq.Load()
	if seq&1 == 0 {
		return // no self-read
	}
	if cancel {
		rd.cancel = true
	} else {
		rd.stop = true
	}
	rd.flagSeq = seq
	rd.flagged.Store(true)
	_ = l.conn.SetReadDeadline(pastDeadline)
}

// clearFlags drops cancel and stop. Called with rd.mu held.
func (rd *readSide) clearFlags() {
	rd.cancel, rd.stop = false, false
	rd.flagged.Store(false)
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
	h, err := l.fr.Next()
	if err != nil {
		return err
	}
	return l.dispatch(h, background)
}

// dispatch handles a frame whose header has been read and checked.
func (l *link) dispatch(h *Header, background bool) error {
	l.c.bytesRecv.Add(h.Size())
	switch h.Typ() {
	case TypePing:
		return nil
	case TypeGoAway:
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
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// A frame cannot be resumed: the peer's send was cancelled
		// mid-frame (spec.md §5) or its process ended.
		return fmt.Errorf("peer %d cut the link mid-frame: %w", l.p.id, err)
	}
	return err
}

// wantRead registers a Receive that wants the read side and kicks the background
// reader out of its blocking read.
func (l *link) wantRead() {
	rd := &l.rd
	rd.tok.state.Add(tokWant)
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
	l.rd.tok.state.Add(tokUnwant)
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
	l.flag(false) // even if a stop is set: it may be stale, aimed at an earlier read
	rd.mu.Unlock()
}

// armReadWatch makes a cancellation of ctx interrupt the Receive reading the link:
// the registration is kept while Receives use the same context (or none), so
// that beginning a self-read usually takes no lock. Called by the holder of
// rd.tok, with rd.mu held.
func (l *link) armReadWatch(ctx context.Context) {
	rd := &l.rd
	d := ctx.Done()
	if d == rd.watch {
		return
	}
	if rd.watchFn != nil {
		rd.watchFn()
		rd.watchFn = nil
	}
	rd.watch = d
	if d == nil {
		return
	}
	rd.watchFn = context.AfterFunc(ctx, func() {
		rd.mu.Lock()
		if rd.watch == d {
			// The Receive reading now (if any) has this context.
			l.flag(true)
		}
		rd.mu.Unlock()
	})
}
