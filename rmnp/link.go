package rmnp

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/s2"
)

// SmallWrite is the largest payload copied next to its header for a single write;
// larger payloads are written from the caller's buffer after the header.
const SmallWrite = 32 << 10

// link is one authenticated connection to a peer on one network. It owns one reader
// goroutine (readLoop) and one sender goroutine (sendLoop), as yamux's session.
type link struct {
	e      *Endpoint
	p      *peer
	conn   net.Conn
	info   linkInfo
	dialed bool
	local  string
	remote string
	fr     *frameReader

	mu       sync.Mutex
	q        []*outItem // FIFO of frames not yet written
	busy     bool       // a frame is being written (by sendLoop or a direct Send)
	wDone    <-chan struct{}
	free     []*outItem
	watch    <-chan struct{} // Done channel watched by watchStop
	watchFn  func() bool
	wake     chan struct{}
	closed   chan struct{}
	down     atomic.Bool // set just before closed is closed: isDown without a channel operation
	failOnce sync.Once
	err      error

	// owned by whoever holds busy
	wbuf []byte
	zbuf []byte
	wseq [2]uint32
	hdr  Header

	rd   readSide
	sock sockIO // the connection's reads and writes
	// lastPayload is the payload size of the last CTRL and DATA read (by the
	// holder of rd.tok): the prediction of a speculative read.
	lastPayload [2]int

	c counters
}

// counters are updated with atomics so Stats never blocks the hot path.
type counters struct {
	msgsSent, msgsRecv   atomic.Uint64
	bytesSent, bytesRecv atomic.Uint64 // on the wire, headers included
	rawSent, rawRecv     atomic.Uint64 // DATA payload before compression / after decompression
	zSent, zRecv         atomic.Uint64 // DATA payload on the wire
	replaced, skipped    atomic.Uint64
	specHits             atomic.Uint64 // predicted frames read straight into a posted buffer
	blocked              atomic.Int64  // ticks spent blocked in Receive (clock.go)
	lastWrite            atomic.Int64
}

// outItem is a queued frame. Async DATA owns a copy of the payload; other kinds point
// at the caller's buffer while the caller waits on done.
type outItem struct {
	kind    Flags
	async   bool
	waiter  bool
	started bool
	written bool // the writer is done with it (err says how)
	buf     []byte
	owned   []byte
	err     error
	done    chan struct{}
}

func newLink(e *Endpoint, p *peer, c net.Conn, info linkInfo, dialed bool) *link {
	l := &link{e: e, p: p, conn: c, info: info, dialed: dialed,
		local: FormatAddr(c.LocalAddr()), remote: RemoteName(c),
		fr:     NewFrameReader(c, e.cfg.MaxFrame),
		wake:   make(chan struct{}, 1),
		closed: make(chan struct{}),
		wbuf:   make([]byte, frameAlign+SmallWrite),
	}
	l.fr.Version = info.version
	l.rd.tok.init()
	l.rd.resume = time.NewTimer(time.Hour)
	l.rd.resume.Stop()
	l.rd.now = make(chan struct{}, 1)
	l.fr.retry = l.interrupted
	l.sock.init(c, e.cfg.ReadPoll)
	l.fr.src = &l.sock
	l.c.lastWrite.Store(time.Now().UnixNano())
	return l
}

func Signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// fail tears the link down once: close the connection, fail queued frames, tell the
// endpoint (PeerDown).
func (l *link) fail(err error) {
	l.failOnce.Do(func() {
		l.mu.Lock()
		l.err = err
		l.down.Store(true)
		close(l.closed)
		l.conn.Close()
		for _, it := range l.q {
			it.err = fmt.Errorf("%w: peer %d: %w", ErrPeerDown, l.p.id, err)
			if it.waiter {
				Signal(it.done)
			}
		}
		l.q = l.q[:0]
		if l.watchFn != nil {
			l.watchFn()
			l.watchFn, l.watch = nil, nil
		}
		l.mu.Unlock()
		l.rd.mu.Lock()
		if l.rd.watchFn != nil { // rd.watch stays: only holders of rd.tok write it
			l.rd.watchFn()
			l.rd.watchFn = nil
		}
		l.rd.mu.Unlock()
		l.e.linkDown(l, err)
	})
}

func (l *link) downErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Errorf("%w: peer %d at %s: %w", ErrPeerDown, l.p.id, l.remote, l.err)
}

func (l *link) isDown() bool { return l.down.Load() }

func (l *link) getItem() *outItem {
	if n := len(l.free); n > 0 {
		it := l.free[n-1]
		l.free = l.free[:n-1]
		return it
	}
	return &outItem{done: make(chan struct{}, 1)}
}

func (l *link) putItem(it *outItem) {
	it.buf, it.err, it.started, it.written, it.waiter, it.async = nil, nil, false, false, false, false
	l.free = append(l.free, it)
}

// sendAsync queues an asynchronous DATA frame and returns at once. While a frame is
// in flight, a newer DATA replaces the queued one (AIAC "skip"), unless a CTRL was
// queued after it.
func (l *link) sendAsync(buf []byte) error {
	l.mu.Lock()
	if l.isDown() {
		l.mu.Unlock()
		return l.downErr()
	}
	if n := len(l.q); n > 0 && l.q[n-1].async {
		it := l.q[n-1]
		it.owned = append(it.owned[:0], buf...)
		it.buf = it.owned
		l.c.skipped.Add(1)
		l.mu.Unlock()
		return nil
	}
	it := l.getItem()
	it.kind, it.async = DATA, true
	it.owned = append(it.owned[:0], buf...)
	it.buf = it.owned
	l.q = append(l.q, it)
	l.mu.Unlock()
	Signal(l.wake)
	return nil
}

// sendReliable writes a CTRL or synchronous DATA frame and returns once it is handed
// to the kernel. When nothing is queued it writes from the caller's goroutine.
func (l *link) sendReliable(ctx context.Context, kind Flags, buf []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	if l.isDown() {
		l.mu.Unlock()
		return l.downErr()
	}
	if !l.busy && len(l.q) == 0 {
		l.busy = true
		l.armWatch(ctx)
		l.mu.Unlock()
		err := l.writeMsg(ctx, kind, false, buf)
		l.mu.Lock()
		l.busy, l.wDone = false, nil
		pending := len(l.q) > 0
		l.mu.Unlock()
		if pending {
			Signal(l.wake)
		}
		if err != nil {
			l.fail(err)
			return l.downErr()
		}
		return nil
	}
	it := l.getItem()
	it.kind, it.waiter, it.buf = kind, true, buf
	l.q = append(l.q, it)
	l.mu.Unlock()
	Signal(l.wake)
	return l.waitQueued(ctx, it)
}

// waitQueued waits until sendLoop has written the queued frame it, or ctx ends.
func (l *link) waitQueued(ctx context.Context, it *outItem) error {
	select {
	case <-it.done:
	case <-ctx.Done():
		l.mu.Lock()
		if it.written || it.err != nil {
			// Finished (or failed) before the cancellation was seen.
			l.mu.Unlock()
			<-it.done
			break
		}
		if !it.started {
			for i, x := range l.q {
				if x == it {
					l.q = append(l.q[:i], l.q[i+1:]...)
					break
				}
			}
			l.putItem(it)
			l.mu.Unlock()
			return ctx.Err()
		}
		l.mu.Unlock()
		// The frame is (being) written from buf: cut the link rather than return
		// while the kernel may still read the caller's buffer.
		l.fail(fmt.Errorf("send to peer %d cancelled mid-frame: %w", l.p.id, ctx.Err()))
		<-it.done
	}
	l.mu.Lock()
	err := it.err
	l.putItem(it)
	l.mu.Unlock()
	return err
}

// armWatch makes a cancellation of ctx abort a direct write in progress. The
// registration is kept while callers keep using the same context, so the steady
// state allocates nothing. Called with l.mu held.
func (l *link) armWatch(ctx context.Context) {
	d := ctx.Done()
	l.wDone = d
	if d == nil || d == l.watch {
		return
	}
	if l.watchFn != nil {
		l.watchFn()
	}
	l.watch = d
	l.watchFn = context.AfterFunc(ctx, func() {
		l.mu.Lock()
		abort := l.busy && l.wDone == d
		l.mu.Unlock()
		if abort {
			l.fail(fmt.Errorf("send to peer %d cancelled mid-frame: %w", l.p.id, ctx.Err()))
		}
	})
}

// writeMsg writes one MSG frame. The caller holds busy.
func (l *link) writeMsg(ctx context.Context, kind Flags, async bool, buf []byte) error {
	flags := uint8(kind)
	if async {
		flags |= WireAsync
	}
	payload := buf
	if kind == DATA && l.info.compress && len(buf) > 0 {
		if need := s2.MaxEncodedLen(len(buf)); cap(l.zbuf) < need {
			l.zbuf = make([]byte, need)
		}
		z := s2.Encode(l.zbuf[:cap(l.zbuf)], buf)
		if len(z) < len(buf) {
			payload = z
			flags |= WireCompressed
		}
	}
	i := 0
	if kind == DATA {
		i = 1
	}
	l.wseq[i]++
	l.hdr.EncodeV(l.info.version, TypeMsg, flags, uint32(len(payload)), uint32(len(buf)), l.wseq[i])
	if dl, ok := ctx.Deadline(); ok {
		_ = l.conn.SetWriteDeadline(dl)
		defer l.conn.SetWriteDeadline(time.Time{})
	}
	if err := l.writeFrame(payload); err != nil {
		return err
	}
	l.c.msgsSent.Add(1)
	if kind == DATA {
		l.c.rawSent.Add(uint64(len(buf)))
		if l.info.compress { // without compression wire = raw (see counters)
			l.c.zSent.Add(uint64(len(payload)))
		}
	}
	return nil
}

// writeFrame writes l.hdr, its pad and payload in one system call: small frames
// copied together, large ones with writev from the caller's buffer.
func (l *link) writeFrame(payload []byte) error {
	var err error
	pad := l.hdr.Pad()
	if len(payload) <= SmallWrite {
		copy(l.wbuf, l.hdr[:])
		off := HeaderSize + copy(l.wbuf[HeaderSize:HeaderSize+pad], ZeroPad[:])
		n := copy(l.wbuf[off:], payload)
		err = l.sock.write(l.wbuf[:off+n], nil, nil)
	} else {
		err = l.sock.write(l.hdr[:], ZeroPad[:pad], payload)
	}
	if err != nil {
		return err
	}
	l.c.bytesSent.Add(l.hdr.Size())
	if l.e.cfg.HeartbeatInterval > 0 {
		l.c.lastWrite.Store(time.Now().UnixNano())
	}
	return nil
}

// sendLoop writes queued frames, heartbeats, and the final GOAWAY.
func (l *link) sendLoop() {
	defer l.e.wg.Done()
	var tick <-chan time.Time
	if hb := l.e.cfg.HeartbeatInterval; hb > 0 {
		t := time.NewTicker(hb)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-l.wake:
			l.drain()
		case <-tick:
			l.heartbeat()
		case <-l.closed:
			return
		case <-l.e.closed:
			l.drain()
			l.mu.Lock()
			for l.busy && !l.isDown() { // a direct Send is finishing
				l.mu.Unlock()
				time.Sleep(time.Millisecond)
				l.mu.Lock()
			}
			if l.isDown() {
				// Failed (an Abort, or the connection broke): there is no
				// one to say GOAWAY to, and a direct Send may still hold
				// the writer, so the frame must not be written.
				l.mu.Unlock()
				return
			}
			l.busy = true
			l.mu.Unlock()
			l.hdr.EncodeV(l.info.version, TypeGoAway, 0, 0, 0, 0)
			_ = l.writeFrame(nil)
			l.fail(ErrClosed)
			return
		}
	}
}

// drain writes queued frames in order until the queue is empty.
func (l *link) drain() {
	l.mu.Lock()
	for len(l.q) > 0 && !l.busy && !l.isDown() {
		it := l.q[0]
		copy(l.q, l.q[1:])
		l.q = l.q[:len(l.q)-1]
		it.started = true
		l.busy = true
		l.mu.Unlock()
		err := l.writeMsg(context.Background(), it.kind, it.async, it.buf)
		l.mu.Lock()
		l.busy = false
		it.written = true
		if it.waiter {
			if err != nil {
				it.err = fmt.Errorf("%w: peer %d at %s: %w", ErrPeerDown, l.p.id, l.remote, err)
			}
			Signal(it.done)
		} else {
			l.putItem(it)
		}
		if err != nil {
			l.mu.Unlock()
			l.fail(err)
			return
		}
	}
	l.mu.Unlock()
}

func (l *link) heartbeat() {
	hb := l.e.cfg.HeartbeatInterval
	if time.Since(time.Unix(0, l.c.lastWrite.Load())) < hb {
		return
	}
	l.mu.Lock()
	if l.busy || len(l.q) > 0 || l.isDown() {
		l.mu.Unlock()
		return
	}
	l.busy = true
	l.mu.Unlock()
	l.hdr.EncodeV(l.info.version, TypePing, 0, 0, 0, 0)
	err := l.writeFrame(nil)
	l.mu.Lock()
	l.busy = false
	l.mu.Unlock()
	if err != nil {
		l.fail(err)
	}
}
