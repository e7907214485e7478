package rmnp

import "context"

// direct is Receive's fast path for the common case of an iterative solver: one
// link to the peer, nothing of the kind buffered, no other Receive posted for it,
// and the link's read side free. The Receive takes the read side before it looks at
// the peer (so nothing can be delivered meanwhile), posts its buffer and reads its
// link until its message is in: one peer lock to post and one per frame (the frame
// that completes the posting also withdraws it), and no hand-off to the
// background reader. done false means the general path must
// go on: either nothing was done, or r.pr is posted and r.start set.
func (r *receiveOp) direct(ctx context.Context) (n int, done bool) {
	p, ib := r.p, r.ib
	l := p.primary()
	if l == nil || len(r.buf) == 0 || r.flags&NoWait != 0 {
		return 0, false
	}
	rd := &l.rd
	if !rd.tok.tryTakeWanting() {
		return 0, false
	}
	l.beginSelfRead(ctx)
	p.mu.Lock()
	if len(p.links) != 1 || p.links[0] != l || len(ib.q) > 0 || ib.posted != nil || p.e.isClosed() {
		p.mu.Unlock()
		l.endSelfRead(nil)
		rd.tok.releaseWanting()
		return 0, false
	}
	pr := &ib.post
	pr.buf, pr.n, pr.claimed, pr.completed, pr.link = r.buf, 0, false, false, nil
	pr.self = true // this goroutine reads the link: no wake-up
	pr.direct = l  // completed from l: withdrawn at once (completePosted)
	ib.posted, r.pr = pr, pr
	p.mu.Unlock()
	r.start = ticks()
	l.endSelfRead(l.readUntil(ctx, r))
	// The usual end: the message came on l and completePosted withdrew the
	// posting. selfN is set (≥ 0) only then: selfDone alone may come from
	// another Receive's posting. Both are l's reader state: read them before
	// releasing it.
	if rd.selfDone && rd.selfN >= 0 {
		n = rd.selfN
		rd.tok.releaseWanting()
		l.addBlocked(r.start)
		return n, true
	}
	rd.tok.releaseWanting()
	p.mu.Lock()
	pr.self, pr.direct = false, nil
	if !pr.completed {
		// Cancelled, link down, or another link came up: the general path
		// takes the posting over.
		p.mu.Unlock()
		return 0, false
	}
	n = pr.n
	l = pr.link
	p.withdraw(ib)
	p.mu.Unlock()
	l.addBlocked(r.start)
	return n, true
}

// beginSelfRead makes a Receive holding l.rd.tok the link's reader: a cancellation
// of ctx or another link coming up interrupts its reads (at a frame boundary).
func (l *link) beginSelfRead(ctx context.Context) {
	rd := &l.rd
	if ctx.Done() != rd.watch {
		rd.mu.Lock()
		l.armReadWatch(ctx)
		rd.mu.Unlock()
	}
	rd.selfSeq.Add(1) // odd: reading for itself
}

// endSelfRead undoes beginSelfRead and tears the link down if err is a read error.
// The caller then releases rd.tok.
func (l *link) endSelfRead(err error) {
	rd := &l.rd
	rd.selfSeq.Add(1) // even
	if rd.flagged.Load() {
		// A cancellation or stop came for this read after its last frame.
		// (One that comes after the load is stale: interrupted retries.)
		rd.mu.Lock()
		if rd.cancel || rd.stop {
			rd.clearFlags()
			l.restoreDeadline()
		}
		rd.mu.Unlock()
	}
	if err != nil && err != errCancelled {
		l.fail(l.readErr(err))
	}
}

// readUntil reads frames for the Receive r (which holds l.rd.tok) until its message
// is in or it must stop reading for itself (see arrived). It returns errCancelled
// if ctx ended between frames, or the read error.
func (l *link) readUntil(ctx context.Context, r *receiveOp) error {
	rd := &l.rd
	rd.selfDone, rd.selfN = false, -1
	for {
		if ctx.Err() != nil {
			return errCancelled
		}
		l.heartbeatDeadline()
		handled, err := l.readSpeculative(r)
		if !handled {
			err = l.readOne(false)
		}
		if err != nil {
			return err
		}
		if rd.selfDone || r.arrived() {
			return nil
		}
	}
}
