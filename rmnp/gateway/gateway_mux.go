package gateway

import (
	"bufio"
	"fmt"
	"github.com/gridtui/gridtui/rmnp"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/s2"
)

// Chunking on a gateway link: a DATA message goes out in chunks of at most
// dataChunk bytes, so a CTRL of another channel waits for one chunk at most,
// never for a whole halo on a slow WAN.
const (
	dataChunk = 32 << 10
	ctrlChunk = 256 << 10
	// chanQueueLimit bounds the bytes a channel queues toward the peer
	// gateway; beyond it the gateway stops reading the worker and TCP pushes
	// back on it.
	chanQueueLimit = 8 << 20
)

// relayItem is one message (or handshake piece, or operation) queued on a
// channel toward the peer gateway.
type relayItem struct {
	op, iflags uint8
	body       []byte
	off        int
	started    bool
}

func (it *relayItem) isData() bool  { return it.op == opMsg && it.iflags&rmnp.WireDATA != 0 }
func (it *relayItem) isAsync() bool { return it.isData() && it.iflags&rmnp.WireAsync != 0 }

// gwMux is one gateway link: the channels it carries, its writer's queues
// and counters.
type gwMux struct {
	g      *Gateway
	conn   net.Conn
	peer   GatewayPeer
	dialed bool

	mu     sync.Mutex
	chans  map[uint32]*gwChan
	ready  []*gwChan // channels with queued items, in arrival order
	nextID uint32
	queued int
	wake   chan struct{}
	closed chan struct{}
	down   atomic.Bool
	err    error
	once   sync.Once

	// writer-owned
	wseq uint32
	wbuf []byte
	zbuf []byte

	c gwCounters
}

// gwCounters are a gateway link's counters (GatewayLinkStats).
type gwCounters struct {
	ctrlMsgs, dataMsgs, skipped atomic.Uint64
	rawOut, wireOut             atomic.Uint64 // DATA bytes before and after compression
	bytesOut, bytesIn           atomic.Uint64 // every frame, headers included
	maxQueued                   atomic.Int64
}

func newMux(g *Gateway, c net.Conn, p GatewayPeer, dialed bool) *gwMux {
	m := &gwMux{g: g, conn: c, peer: p, dialed: dialed, chans: map[uint32]*gwChan{},
		wake: make(chan struct{}, 1), closed: make(chan struct{}),
		wbuf: make([]byte, rmnp.HeaderSize+relayHeaderSize+ctrlChunk)}
	m.nextID = 2
	if dialed {
		m.nextID = 1 // the dialer's channels are odd, the acceptor's even
	}
	return m
}

func (m *gwMux) isDown() bool { return m.down.Load() }

// fail closes the link and every channel on it.
func (m *gwMux) fail(err error) {
	m.once.Do(func() {
		m.mu.Lock()
		m.err = err
		m.down.Store(true)
		close(m.closed)
		chans := make([]*gwChan, 0, len(m.chans))
		for _, ch := range m.chans {
			chans = append(chans, ch)
		}
		m.chans = map[uint32]*gwChan{}
		m.mu.Unlock()
		m.conn.Close()
		for _, ch := range chans {
			ch.shut()
		}
	})
}

// run serves the link: a writer goroutine and this reader, until either
// fails.
func (m *gwMux) run() error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.writeLoop()
	}()
	m.readLoop()
	wg.Wait()
	return m.err
}

// newChan registers a channel this gateway opens for worker connection c.
func (m *gwMux) newChan(c net.Conn, dialerSide bool) *gwChan {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch := newChan(m, m.nextID, c, dialerSide)
	m.nextID += 2
	m.chans[ch.id] = ch
	return ch
}

// adoptChan registers a channel the peer gateway opened; nil if the id is
// taken or the link is down.
func (m *gwMux) adoptChan(id uint32) *gwChan {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down.Load() || m.chans[id] != nil {
		return nil
	}
	ch := newChan(m, id, nil, false)
	m.chans[id] = ch
	return ch
}

// closeChan forgets a channel and closes its worker connection; tell says
// whether to send CLOSE to the peer gateway first.
func (m *gwMux) closeChan(ch *gwChan, tell bool) {
	if tell {
		m.enqueue(ch, &relayItem{op: opClose})
	}
	m.mu.Lock()
	if m.chans[ch.id] == ch {
		delete(m.chans, ch.id)
	}
	m.mu.Unlock()
	ch.shut()
}

// forget drops a channel whose route failed, leaving its worker connection
// to the caller.
func (m *gwMux) forget(ch *gwChan) {
	m.mu.Lock()
	if m.chans[ch.id] == ch {
		delete(m.chans, ch.id)
	}
	m.mu.Unlock()
}

// enqueue queues it on ch toward the peer gateway. An asynchronous DATA
// replaces the channel's last queued item if that is an asynchronous DATA
// not started (never across a CTRL queued after it); a synchronous one waits
// while the channel holds more than chanQueueLimit bytes.
func (m *gwMux) enqueue(ch *gwChan, it *relayItem) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for it.isData() && !it.isAsync() && ch.outBytes > chanQueueLimit && !m.down.Load() && !ch.isShut() {
		m.mu.Unlock()
		select {
		case <-ch.space:
		case <-m.closed:
		case <-ch.done:
		}
		m.mu.Lock()
	}
	if m.down.Load() {
		return
	}
	if n := len(ch.out); it.isAsync() && n > 0 && ch.out[n-1].isAsync() && !ch.out[n-1].started {
		old := ch.out[n-1]
		ch.outBytes += len(it.body) - len(old.body)
		m.queued += len(it.body) - len(old.body)
		ch.out[n-1] = it
		m.c.skipped.Add(1)
		return
	}
	ch.out = append(ch.out, it)
	ch.outBytes += len(it.body)
	m.queued += len(it.body)
	if int64(m.queued) > m.c.maxQueued.Load() {
		m.c.maxQueued.Store(int64(m.queued))
	}
	if !ch.inReady {
		ch.inReady = true
		m.ready = append(m.ready, ch)
	}
	rmnp.Signal(m.wake)
}

// pick chooses the next item to write a chunk of, under m.mu: the first
// channel whose head is not DATA (CTRL, handshake, open, close), else the
// first channel with DATA, which then goes to the back of the line.
func (m *gwMux) pick() (*gwChan, *relayItem) {
	for i, ch := range m.ready {
		if it := ch.out[0]; !it.isData() {
			return m.take(i, ch)
		}
	}
	if len(m.ready) == 0 {
		return nil, nil
	}
	return m.take(0, m.ready[0])
}

// take marks ch's head started and rotates ch to the back of the ready
// line (or out of it once its queue empties, in chunkDone).
func (m *gwMux) take(i int, ch *gwChan) (*gwChan, *relayItem) {
	it := ch.out[0]
	it.started = true
	copy(m.ready[i:], m.ready[i+1:])
	m.ready[len(m.ready)-1] = ch
	return ch, it
}

// chunkDone accounts for n bytes of it written, under m.mu.
func (m *gwMux) chunkDone(ch *gwChan, it *relayItem, n int) {
	it.off += n
	ch.outBytes -= n
	m.queued -= n
	if it.off < len(it.body) {
		return
	}
	ch.out = ch.out[1:]
	rmnp.Signal(ch.space)
	if len(ch.out) == 0 {
		ch.inReady = false
		for i, c := range m.ready {
			if c == ch {
				m.ready = append(m.ready[:i], m.ready[i+1:]...)
				break
			}
		}
	}
}

// writeLoop writes queued chunks, most urgent first, and a PING when the
// link was idle for a heartbeat interval.
func (m *gwMux) writeLoop() {
	hb := m.g.cfg.HeartbeatInterval
	t := time.NewTicker(hb)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-m.wake:
		case <-t.C:
			if time.Since(last) >= hb {
				var h rmnp.Header
				h.EncodeV(rmnp.ProtoVersion, rmnp.TypePing, 0, 0, 0, 0)
				if _, err := m.conn.Write(h[:]); err != nil {
					m.fail(fmt.Errorf("gateway link to %s: %w", m.peer.Name, err))
					return
				}
				m.c.bytesOut.Add(rmnp.HeaderSize)
				last = time.Now()
			}
			continue
		case <-m.closed:
			return
		}
		for {
			m.mu.Lock()
			ch, it := m.pick()
			m.mu.Unlock()
			if it == nil {
				break
			}
			n, err := m.writeChunk(ch, it)
			if err != nil {
				m.fail(fmt.Errorf("gateway link to %s: %w", m.peer.Name, err))
				return
			}
			last = time.Now()
			m.mu.Lock()
			m.chunkDone(ch, it, n)
			m.mu.Unlock()
		}
	}
}

// writeChunk writes the next chunk of it as one RELAY frame and returns the
// body bytes it consumed. Only the writer touches it.off and the body.
func (m *gwMux) writeChunk(ch *gwChan, it *relayItem) (int, error) {
	size := ctrlChunk
	if it.isData() {
		size = dataChunk
	}
	chunk := it.body[it.off:min(len(it.body), it.off+size)]
	rh := relayHeader{channel: ch.id, op: it.op, iflags: it.iflags, last: it.off+len(chunk) == len(it.body)}
	wire, flags := chunk, uint8(0)
	if it.isData() && m.g.cfg.Compress && len(chunk) > 0 {
		if need := s2.MaxEncodedLen(len(chunk)); cap(m.zbuf) < need {
			m.zbuf = make([]byte, need)
		}
		if z := s2.Encode(m.zbuf[:cap(m.zbuf)], chunk); len(z) < len(chunk) {
			wire, flags = z, rmnp.WireCompressed
		}
	}
	m.wseq++
	var h rmnp.Header
	h.EncodeV(rmnp.ProtoVersion, rmnp.TypeRelay, flags, uint32(relayHeaderSize+len(wire)), uint32(relayHeaderSize+len(chunk)), m.wseq)
	b := m.wbuf[:rmnp.HeaderSize+relayHeaderSize]
	copy(b, h[:])
	rh.put(b[rmnp.HeaderSize:])
	total := len(b) + len(wire)
	if len(wire) <= rmnp.SmallWrite {
		b = append(b, wire...)
		if _, err := m.conn.Write(b); err != nil {
			return 0, err
		}
	} else if _, err := (&net.Buffers{b, wire}).WriteTo(m.conn); err != nil { // large: writev, uncopied
		return 0, err
	}
	m.c.bytesOut.Add(uint64(total))
	if it.isData() {
		m.c.rawOut.Add(uint64(len(chunk)))
		m.c.wireOut.Add(uint64(len(wire)))
	}
	if rh.last && it.op == opMsg {
		if it.isData() {
			m.c.dataMsgs.Add(1)
		} else {
			m.c.ctrlMsgs.Add(1)
		}
	}
	return len(chunk), nil
}

// readLoop reads the link's frames and hands each to its channel.
func (m *gwMux) readLoop() {
	rr := relayReader{src: bufio.NewReaderSize(m.conn, 64<<10), maxFrame: uint32(m.g.cfg.MaxFrame) + relayHeaderSize}
	dead := 3 * m.g.cfg.HeartbeatInterval
	for {
		_ = m.conn.SetReadDeadline(time.Now().Add(dead))
		f, err := rr.Next()
		if err != nil {
			m.fail(fmt.Errorf("gateway link to %s: %w", m.peer.Name, err))
			return
		}
		m.c.bytesIn.Add(rr.hdr.Size())
		if f.op == 0 {
			if f.iflags == rmnp.TypeGoAway {
				m.fail(fmt.Errorf("gateway link to %s: %w", m.peer.Name, rmnp.ErrPeerClosed))
				return
			}
			continue
		}
		if err := m.dispatch(f); err != nil {
			m.fail(fmt.Errorf("gateway link to %s: %w", m.peer.Name, err))
			return
		}
	}
}

// dispatch hands one RELAY frame to its channel.
func (m *gwMux) dispatch(f relayFrame) error {
	if f.op == opOpen {
		if (f.channel%2 == 1) == m.dialed {
			return fmt.Errorf("%w: OPEN of channel %d from the wrong side", rmnp.ErrFrame, f.channel)
		}
		go m.g.openFromPeer(m, f.channel, string(f.body))
		return nil
	}
	m.mu.Lock()
	ch := m.chans[f.channel]
	m.mu.Unlock()
	if ch == nil {
		return nil // closed here already: the peer learns it from our CLOSE
	}
	switch f.op {
	case opOpened:
		if len(f.body) != 1 {
			return fmt.Errorf("%w: OPENED body of %d bytes", rmnp.ErrFrame, len(f.body))
		}
		select {
		case ch.opened <- f.body[0]:
		default:
		}
	case opClose:
		m.mu.Lock()
		delete(m.chans, ch.id)
		m.mu.Unlock()
		ch.deliver(&legItem{op: opClose})
	case opMsg:
		if len(ch.asm)+len(f.body) > m.g.cfg.MaxFrame {
			m.closeChan(ch, true)
			return nil
		}
		ch.asm = append(ch.asm, f.body...)
		if f.last {
			ch.deliver(&legItem{op: opMsg, iflags: f.iflags, body: ch.asm})
			ch.asm = nil
		}
	default:
		ch.deliver(&legItem{op: f.op, body: append([]byte(nil), f.body...)})
	}
	return nil
}
