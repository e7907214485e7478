package rmnp

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// msg is a buffered (unexpected) message: one that arrived before a matching Receive
// (PACX-MPI's unexpected-message buffering).
type msg struct {
	buf     []byte
	n       int
	async   bool
	arrival uint64
	link    *link
}

// posted is a Receive waiting with its buffer: the reader writes the next message
// straight into it, saving a copy.
type posted struct {
	buf       []byte
	n         int
	claimed   bool // the reader is writing into buf
	completed bool
	self      bool  // its owner is reading the link itself: no wake-up needed
	direct    *link // a direct Receive reading this link posted it (see completePosted)
	link      *link
	done      chan struct{} // signalled (under peer.mu) when completed
}

// inbox holds one kind (CTRL or DATA) of messages from one peer.
type inbox struct {
	q      []*msg
	ready  chan struct{} // signalled when q grows or the peer goes down
	posted *posted
	post   posted // the reusable posted receive
}

// peer is the receiving state for one remote peer, shared by its links.
type peer struct {
	e  *Endpoint
	id PeerID

	mu       sync.Mutex
	in       [2]inbox // CTRL, DATA
	free     []*msg
	buffered int
	lastCtrl uint64        // arrival of the last buffered CTRL: async DATA never merges across it
	ctrlAt   atomic.Int64  // monoNow when the last CTRL message was read off a link (0: none)
	space    chan struct{} // signalled when buffered shrinks
	links    []*link       // live links, oldest first
	first    atomic.Pointer[link]
	everUp   bool
}

func newPeer(e *Endpoint, id PeerID) *peer {
	p := &peer{e: e, id: id, space: make(chan struct{}, 1)}
	for i := range p.in {
		p.in[i].ready = make(chan struct{}, 1)
		p.in[i].post.done = make(chan struct{}, 1)
	}
	return p
}

func kindIndex(k Flags) int {
	if k == DATA {
		return 1
	}
	return 0
}

func (p *peer) addLink(l *link) {
	p.mu.Lock()
	p.links = append(p.links, l)
	p.everUp = true
	p.setFirst()
	others := p.links[:len(p.links)-1]
	for _, o := range others {
		// A Receive reads for itself only on a peer's only link.
		o.stopSelfRead()
	}
	p.mu.Unlock()
}

// removeLink drops l and returns how many links are left; with none, blocked
// receivers are woken to report ErrPeerDown.
func (p *peer) removeLink(l *link) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.links {
		if x == l {
			p.links = append(p.links[:i], p.links[i+1:]...)
			break
		}
	}
	p.setFirst()
	if len(p.links) == 0 {
		for i := range p.in {
			Signal(p.in[i].ready)
		}
	}
	Signal(p.space)
	return len(p.links)
}

// resumeReaders makes the background readers of p's links read again at once.
// Called with p.mu held.
func (p *peer) resumeReaders() {
	for _, l := range p.links {
		Signal(l.rd.now)
	}
}

func (p *peer) live() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links) > 0
}

// primary returns the oldest live link, on which Send writes (spec.md §2).
func (p *peer) primary() *link { return p.first.Load() }

// setFirst publishes the oldest live link for primary. Called with p.mu held.
func (p *peer) setFirst() {
	if len(p.links) == 0 {
		p.first.Store(nil)
		return
	}
	p.first.Store(p.links[0])
}

func (p *peer) getMsg(n int) *msg {
	if k := len(p.free); k > 0 {
		m := p.free[k-1]
		p.free = p.free[:k-1]
		if cap(m.buf) < n {
			m.buf = make([]byte, n)
		}
		return m
	}
	return &msg{buf: make([]byte, n)}
}

func (p *peer) putMsg(m *msg) {
	m.link = nil
	if len(p.free) < 4 {
		p.free = append(p.free, m)
	}
}

// deliver reads the payload of the MSG frame h from l and hands it to a posted
// Receive or buffers it. Called by whoever reads l; only the background reader
// pauses when the buffer limit is reached.
func (p *peer) deliver(l *link, h *Header, background bool) error {
	idx, size := kindIndex(h.kind()), int(h.Raw())
	async := h.Flags()&WireAsync != 0
	l.lastPayload[idx] = size
	p.mu.Lock()
	ib := &p.in[idx]
	if pr := ib.posted; pr != nil && len(ib.q) == 0 && !pr.claimed && len(pr.buf) >= size {
		return p.deliverPosted(l, h, pr)
	}
	for background && p.buffered > 0 && p.buffered+size > p.e.cfg.MaxBuffered {
		p.mu.Unlock()
		select {
		case <-p.space:
		case <-l.closed:
			return l.err
		case <-p.e.closed:
			return ErrClosed
		}
		p.mu.Lock()
	}
	m := p.getMsg(size)
	p.mu.Unlock()
	if err := l.fr.Payload(h, m.buf[:size]); err != nil {
		p.mu.Lock()
		p.putMsg(m)
		p.mu.Unlock()
		return err
	}
	l.countRecv(h)
	p.mu.Lock()
	m.n, m.async, m.link = size, async, l
	m.arrival = p.e.arrival.Add(1)
	if idx == 0 {
		p.lastCtrl = m.arrival
		p.ctrlAt.Store(monoNow())
	}
	if k := len(ib.q); async && k > 0 && ib.q[k-1].async && ib.q[k-1].arrival > p.lastCtrl {
		old := ib.q[k-1]
		ib.q[k-1] = m
		p.buffered += size - old.n
		p.putMsg(old)
		l.c.replaced.Add(1)
	} else {
		ib.q = append(ib.q, m)
		p.buffered += size
	}
	Signal(ib.ready)
	p.mu.Unlock()
	Signal(p.e.anyReady)
	return nil
}

// deliverPosted reads the payload of h straight into the posted buffer pr. Called
// with p.mu held; returns with it released.
func (p *peer) deliverPosted(l *link, h *Header, pr *posted) error {
	size := int(h.Raw())
	// claimed stays set once completed: no later message lands in pr.
	pr.claimed, pr.link = true, l
	if h.Flags()&WireCompressed == 0 && l.fr.buffered() >= size {
		// The payload is in the read-ahead (a small message): a copy, done
		// without releasing the lock.
		l.fr.read(pr.buf[:size])
		p.completePosted(l, h, pr)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	err := l.fr.Payload(h, pr.buf[:size])
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		pr.claimed = false
		Signal(pr.done)
		return err
	}
	p.completePosted(l, h, pr)
	return nil
}

// completePosted marks pr completed with the message of h and wakes its owner
// unless the owner read the message itself. Called with p.mu held.
func (p *peer) completePosted(l *link, h *Header, pr *posted) {
	l.countRecv(h)
	pr.completed, pr.n = true, int(h.Raw())
	if h.kind() == CTRL {
		p.lastCtrl = p.e.arrival.Add(1)
		p.ctrlAt.Store(monoNow())
	}
	switch {
	case pr.direct == l:
		// A direct Receive reading l itself: it finds its message in l's
		// reader state and needs no lock to collect it.
		l.rd.selfDone, l.rd.selfN = true, pr.n
		p.unpost(&p.in[kindIndex(h.kind())])
	case pr.self:
		l.rd.selfDone = true
	default:
		Signal(pr.done)
	}
}

func (l *link) countRecv(h *Header) {
	l.c.msgsRecv.Add(1)
	if h.kind() == DATA {
		l.c.rawRecv.Add(uint64(h.Raw()))
		if l.info.compress { // without compression wire = raw (see counters)
			l.c.zRecv.Add(uint64(h.Length()))
		}
	}
}

// take copies the head of inbox idx into buf. Called with p.mu held and a non-empty
// queue.
func (p *peer) take(idx int, buf []byte) (int, *link, error) {
	ib := &p.in[idx]
	m := ib.q[0]
	if m.n > len(buf) {
		return m.n, nil, fmt.Errorf("%w: %d-byte message from peer %d, buffer of %d",
			ErrShortBuffer, m.n, p.id, len(buf))
	}
	n, l := copy(buf, m.buf[:m.n]), m.link
	copy(ib.q, ib.q[1:])
	ib.q[len(ib.q)-1] = nil
	ib.q = ib.q[:len(ib.q)-1]
	p.buffered -= m.n
	p.putMsg(m)
	Signal(p.space)
	if len(ib.q) > 0 {
		Signal(ib.ready)
	}
	return n, l, nil
}
