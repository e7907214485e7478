package rmnp

import (
	"context"
	"fmt"
	"time"
)

// checkKind returns the message kind of flags, which must hold exactly one of CTRL
// and DATA.
func checkKind(flags Flags) (Flags, error) {
	k := flags & kindMask
	if k != CTRL && k != DATA {
		return 0, fmt.Errorf("%w: got %v", ErrFlags, flags)
	}
	return k, nil
}

// Send sends buf to dest as a CTRL or DATA message (GRID_Send). The link's mode
// decides the semantics: CTRL and synchronous DATA return once the frame is handed
// to the kernel, in order; asynchronous DATA is copied and queued and Send returns
// at once, replacing a queued older DATA while one is in flight (counted as
// Skipped). buf may be reused as soon as Send returns. A frame is atomic on the wire
// (spec.md §5): if ctx ends before the frame is started it is withdrawn and the link
// stays up; if ctx ends mid-frame the link is cut (the error names the peer).
func (e *Endpoint) Send(ctx context.Context, dest PeerID, buf []byte, flags Flags) error {
	kind, err := checkKind(flags)
	if err != nil {
		return err
	}
	if len(buf) > e.cfg.MaxFrame {
		return fmt.Errorf("%w: %d-byte message to peer %d exceeds MaxFrame %d",
			ErrFrame, len(buf), dest, e.cfg.MaxFrame)
	}
	if e.isClosed() {
		return ErrClosed
	}
	p := e.lookupPeer(dest)
	var l *link
	if p != nil {
		l = p.primary()
	}
	if l == nil {
		return fmt.Errorf("%w: %d", ErrUnknownPeer, dest)
	}
	if kind == DATA && l.info.mode == Async {
		return l.sendAsync(buf)
	}
	return l.sendReliable(ctx, kind, buf)
}

// Receive copies the next message of kind flags (CTRL or DATA) from src into buf and
// returns its length (GRID_Receive). It blocks until one arrives unless flags has
// NoWait (then ErrNoMessage). A message longer than buf stays buffered and Receive
// returns its length with ErrShortBuffer. With no live link to src (after one was
// up) and nothing buffered it returns ErrPeerDown.
func (e *Endpoint) Receive(ctx context.Context, src PeerID, buf []byte, flags Flags) (int, error) {
	kind, err := checkKind(flags)
	if err != nil {
		return 0, err
	}
	p := e.peerFor(src)
	idx := kindIndex(kind)
	r := receiveOp{p: p, idx: idx, ib: &p.in[idx], buf: buf, flags: flags}
	if n, done := r.direct(ctx); done {
		return n, nil
	}
	return r.run(ctx, src)
}

// run is Receive's general path: buffered messages, polls, several links, several
// receivers, the background reader holding the read side, and whatever direct left.
func (r *receiveOp) run(ctx context.Context, src PeerID) (int, error) {
	defer r.unwant()
	r.p.mu.Lock()
	for {
		if done, n, err := r.step(ctx); done {
			return n, err
		}
		if err := r.wait(ctx); err != nil {
			return 0, fmt.Errorf("rmnp: receive from peer %d: %w", src, err)
		}
	}
}

// receiveOp is the state of one Receive call (kept on the caller's stack).
type receiveOp struct {
	p       *peer
	idx     int
	ib      *inbox
	buf     []byte
	flags   Flags
	pr      *posted // this call's posted buffer, if it posted one
	start   int64   // ticks() when it first had to wait (0: never waited)
	wanting *link   // the link whose read side it asked for
	link    *link   // the peer's primary link when it last looked
}

func (r *receiveOp) unwant() {
	if r.wanting != nil {
		r.wanting.unwantRead()
	}
}

// step tries to finish the Receive. Called with p.mu held; when done it returns with
// p.mu released, otherwise with p.mu held.
func (r *receiveOp) step(ctx context.Context) (bool, int, error) {
	p, ib, pr := r.p, r.ib, r.pr
	if pr != nil && pr.completed {
		n, l := pr.n, pr.link
		p.withdraw(ib)
		p.mu.Unlock()
		l.addBlocked(r.start)
		return true, n, nil
	}
	if pr != nil && pr.claimed {
		p.mu.Unlock()
		err := p.awaitClaimed(ctx, pr, p.id)
		p.mu.Lock()
		if err != nil {
			p.withdraw(ib)
			p.mu.Unlock()
			return true, 0, err
		}
		return r.step(ctx)
	}
	if len(ib.q) > 0 {
		if pr != nil {
			p.withdraw(ib)
			r.pr = nil
		}
		n, l, err := p.take(r.idx, r.buf)
		p.mu.Unlock()
		if err == nil {
			l.addBlocked(r.start)
		}
		return true, n, err
	}
	if err := p.blockErr(r.flags); err != nil {
		if pr != nil {
			p.withdraw(ib)
		}
		p.mu.Unlock()
		return true, 0, err
	}
	if pr == nil && ib.posted == nil && len(r.buf) > 0 {
		pr = &ib.post
		pr.buf, pr.n, pr.claimed, pr.completed, pr.link = r.buf, 0, false, false, nil
		ib.posted, r.pr = pr, pr
	}
	r.link = nil
	if len(p.links) == 1 {
		// Only on a single link can a Receive read for itself: with several, its
		// message may come on any of them.
		r.link = p.links[0]
	}
	return false, 0, nil
}

// wait blocks until something may have changed: the posted buffer was filled, a
// message was buffered, the peer went down, or this Receive got the read side and
// read its link itself. Called with p.mu held, returns with it held, unless ctx
// ended (then the posting is withdrawn and p.mu released).
func (r *receiveOp) wait(ctx context.Context) error {
	p, l := r.p, r.link
	p.mu.Unlock()
	if r.start == 0 {
		r.start = ticks()
	}
	var done chan struct{}
	if r.pr != nil {
		done = r.pr.done
	}
	if l == nil {
		r.unwant()
		r.wanting = nil
	}
	reading, got := r.pr != nil && l != nil, false
	if reading {
		// A posted Receive reads its message itself (see readSide).
		if r.wanting != l {
			r.unwant()
			l.wantRead()
			r.wanting = l
		}
		got = l.rd.tok.tryTake() // the common case, without the select
	}
	if !got {
		got = r.block(ctx, reading, done)
	}
	if got {
		l.readFor(ctx, r)
		l.rd.tok.release()
	}
	p.mu.Lock()
	if r.pr != nil {
		r.pr.self = false
	}
	if err := ctx.Err(); err != nil && (r.pr == nil || !r.pr.claimed && !r.pr.completed) {
		if r.pr != nil {
			p.withdraw(r.ib)
		}
		p.mu.Unlock()
		return err
	}
	return nil
}

// block waits for the posted buffer to be filled (done), a message to be buffered,
// the end of ctx or of the endpoint, or, if reading, for the link's read token; it
// reports whether it took the token.
func (r *receiveOp) block(ctx context.Context, reading bool, done chan struct{}) bool {
	var wake chan struct{} // nil: never ready
	if reading {
		t := &r.link.rd.tok
		t.waiters.Add(1)
		defer t.waiters.Add(-1)
		if t.tryTake() {
			return true
		}
		wake = t.wake
	}
	select {
	case <-done:
	case <-r.ib.ready:
	case <-wake:
		return r.link.rd.tok.tryTake()
	case <-ctx.Done():
	case <-r.p.e.closed:
	}
	return false
}

// arrived reports whether the message this Receive waits for is there, or the
// Receive must stop reading for itself (the peer no longer has exactly one link).
func (r *receiveOp) arrived() bool {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	r.pr.self = true // completed by this goroutine: no wake-up (reset in wait)
	return r.pr.completed || len(r.ib.q) > 0 || len(r.p.links) != 1
}

// awaitClaimed waits while the background reader writes a message into pr. If ctx
// ends first the link is cut, so that nothing writes into the caller's buffer after
// Receive returns; it then returns the context's error unless the message completed.
func (p *peer) awaitClaimed(ctx context.Context, pr *posted, src PeerID) error {
	select {
	case <-pr.done:
		return nil
	case <-ctx.Done():
	}
	pr.link.fail(fmt.Errorf("receive from peer %d cancelled mid-frame: %w", src, ctx.Err()))
	<-pr.done
	p.mu.Lock()
	completed := pr.completed
	p.mu.Unlock()
	if completed {
		return nil
	}
	return ctx.Err()
}

// blockErr says why a Receive must not block. Called with p.mu held.
func (p *peer) blockErr(flags Flags) error {
	switch {
	case p.e.isClosed():
		return ErrClosed
	case p.everUp && len(p.links) == 0:
		return fmt.Errorf("%w: %d, no live link", ErrPeerDown, p.id)
	case flags&NoWait != 0:
		p.resumeReaders() // a poller relies on the background reader
		return ErrNoMessage
	}
	return nil
}

// withdraw removes the posted receive of ib, with any wake-up left on its done
// channel. Called with p.mu held.
func (p *peer) withdraw(ib *inbox) {
	p.unpost(ib)
	select {
	case <-ib.post.done:
	default:
	}
}

// unpost removes the posted receive of ib, whose completion signalled nothing
// (see completePosted). Called with p.mu held.
func (p *peer) unpost(ib *inbox) {
	ib.posted = nil
	ib.post.buf, ib.post.link, ib.post.self, ib.post.direct = nil, nil, false, nil
}

func (l *link) addBlocked(start int64) {
	if l != nil && start != 0 {
		l.c.blocked.Add(max(ticks()-start, 0))
	}
}

// monoBase is the origin of monoNow.
var monoBase = time.Now()

// monoNow returns nanoseconds on the monotonic clock, always positive: one clock
// read where time.Now takes two (wall and monotonic), which counts on the
// per-message path of Receive.
func monoNow() int64 { return int64(time.Since(monoBase)) + 1 }

// Wait blocks until a message is buffered and returns its source and kind without
// consuming it (GRID_Wait): the oldest buffered message across all peers and kinds.
func (e *Endpoint) Wait(ctx context.Context) (PeerID, Flags, error) {
	for {
		if src, kind, ok := e.oldest(); ok {
			Signal(e.anyReady) // let other waiters see it too
			return src, kind, nil
		}
		select {
		case <-e.anyReady:
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("rmnp: wait: %w", ctx.Err())
		case <-e.closed:
			return 0, 0, ErrClosed
		}
	}
}

func (e *Endpoint) oldest() (PeerID, Flags, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.peers {
		p.mu.Lock()
		p.resumeReaders() // Wait relies on the background readers
		p.mu.Unlock()
	}
	var (
		best  uint64
		src   PeerID
		kind  Flags
		found bool
		kinds = [2]Flags{CTRL, DATA}
	)
	for id, p := range e.peers {
		p.mu.Lock()
		for i := range p.in {
			if q := p.in[i].q; len(q) > 0 && (!found || q[0].arrival < best) {
				best, src, kind, found = q[0].arrival, id, kinds[i], true
			}
		}
		p.mu.Unlock()
	}
	return src, kind, found
}
