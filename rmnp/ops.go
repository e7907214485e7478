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
// Skipped). buf may be reused as soon as Send returns.
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
	e.mu.Lock()
	p := e.peers[dest]
	e.mu.Unlock()
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
	ib := &p.in[idx]
	var (
		pr      *posted
		start   time.Time
		wanting *link // the link whose read side this Receive asked for
	)
	defer func() {
		if wanting != nil {
			wanting.unwantRead()
		}
	}()
	p.mu.Lock()
	for {
		if pr != nil {
			if pr.completed {
				n, l := pr.n, pr.link
				p.withdraw(ib)
				p.mu.Unlock()
				l.addBlocked(start)
				return n, nil
			}
			if pr.claimed {
				p.mu.Unlock()
				if err := p.awaitClaimed(ctx, pr, src); err != nil {
					p.mu.Lock()
					p.withdraw(ib)
					p.mu.Unlock()
					return 0, err
				}
				p.mu.Lock()
				continue
			}
		}
		if len(ib.q) > 0 {
			if pr != nil {
				p.withdraw(ib)
				pr = nil
			}
			n, l, err := p.take(idx, buf)
			p.mu.Unlock()
			if err == nil {
				l.addBlocked(start)
			}
			return n, err
		}
		if err := p.blockErr(flags); err != nil {
			if pr != nil {
				p.withdraw(ib)
			}
			p.mu.Unlock()
			return 0, err
		}
		if pr == nil && ib.posted == nil && len(buf) > 0 {
			pr = &ib.post
			pr.buf, pr.n, pr.claimed, pr.completed, pr.link = buf, 0, false, false, nil
			ib.posted = pr
		}
		var l *link
		if len(p.links) > 0 {
			l = p.links[0]
		}
		p.mu.Unlock()
		if start.IsZero() {
			start = time.Now()
		}
		var done, tok chan struct{}
		if pr != nil {
			done = pr.done
			// A posted Receive reads its message itself (see readSide).
			if l != nil && wanting != l {
				if wanting != nil {
					wanting.unwantRead()
				}
				l.wantRead()
				wanting = l
			}
			if l != nil {
				tok = l.rd.tok
			}
		}
		select {
		case <-done:
		case <-ib.ready:
		case <-tok:
			l.readFor(ctx, func() bool {
				p.mu.Lock()
				defer p.mu.Unlock()
				return pr.completed || len(ib.q) > 0
			})
			l.rd.tok <- struct{}{}
		case <-ctx.Done():
		case <-e.closed:
		}
		p.mu.Lock()
		if ctx.Err() != nil && (pr == nil || !pr.claimed && !pr.completed) {
			if pr != nil {
				p.withdraw(ib)
			}
			p.mu.Unlock()
			return 0, fmt.Errorf("rmnp: receive from peer %d: %w", src, ctx.Err())
		}
	}
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

// withdraw removes the posted receive of ib. Called with p.mu held.
func (p *peer) withdraw(ib *inbox) {
	ib.posted = nil
	ib.post.buf, ib.post.link = nil, nil
	select {
	case <-ib.post.done:
	default:
	}
}

func (l *link) addBlocked(start time.Time) {
	if l != nil && !start.IsZero() {
		l.c.blocked.Add(int64(time.Since(start)))
	}
}

// Wait blocks until a message is buffered and returns its source and kind without
// consuming it (GRID_Wait): the oldest buffered message across all peers and kinds.
func (e *Endpoint) Wait(ctx context.Context) (PeerID, Flags, error) {
	for {
		if src, kind, ok := e.oldest(); ok {
			signal(e.anyReady) // let other waiters see it too
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
