package gateway

import (
	"github.com/gridtui/gridtui/rmnp"
	"net"
	"sync"
	"sync/atomic"
)

// gwChan is one relayed worker link as one gateway sees it: the connection
// to its own site's worker (the leg) and the channel on the gateway link.
type gwChan struct {
	m          *gwMux
	id         uint32
	conn       net.Conn
	dialerSide bool          // this side's worker dialed (it sends HELLO and AUTH)
	version    atomic.Uint32 // the worker link's version, from its ACCEPT
	opened     chan uint8

	// toward the peer gateway, under m.mu
	out      []*relayItem
	outBytes int
	inReady  bool
	space    chan struct{}

	// reassembly of the peer's chunks (the gateway link's reader only)
	asm []byte

	// toward the worker
	wmu   sync.Mutex
	wq    []*legItem
	wwake chan struct{}

	done     chan struct{}
	shutOnce sync.Once
}

// legItem is one item queued toward the worker.
type legItem struct {
	op, iflags uint8
	body       []byte
}

func (it *legItem) isAsync() bool {
	return it.op == opMsg && it.iflags&rmnp.WireDATA != 0 && it.iflags&rmnp.WireAsync != 0
}

func newChan(m *gwMux, id uint32, c net.Conn, dialerSide bool) *gwChan {
	return &gwChan{m: m, id: id, conn: c, dialerSide: dialerSide, opened: make(chan uint8, 1),
		space: make(chan struct{}, 1), wwake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (ch *gwChan) isShut() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

// shut closes the worker connection once.
func (ch *gwChan) shut() {
	ch.shutOnce.Do(func() {
		ch.wmu.Lock()
		close(ch.done)
		c := ch.conn
		ch.wmu.Unlock()
		if c != nil {
			c.Close()
		}
	})
}

// attach sets the worker connection of a channel the peer opened; false if
// the channel was closed meanwhile (c is then closed).
func (ch *gwChan) attach(c net.Conn) bool {
	ch.wmu.Lock()
	defer ch.wmu.Unlock()
	select {
	case <-ch.done:
		c.Close()
		return false
	default:
	}
	ch.conn = c
	return true
}

// start runs the leg's reader and writer.
func (ch *gwChan) start() {
	g := ch.m.g
	g.wg.Add(2)
	go func() {
		defer g.wg.Done()
		ch.readLoop()
	}()
	go func() {
		defer g.wg.Done()
		ch.writeLoop()
	}()
}

// deliver queues an item toward the worker. An asynchronous DATA replaces
// the last queued item if that is an asynchronous DATA (the latest-value
// rule of spec.md §5, as the worker's own receiver would apply it).
func (ch *gwChan) deliver(it *legItem) {
	ch.wmu.Lock()
	if n := len(ch.wq); it.isAsync() && n > 0 && ch.wq[n-1].isAsync() {
		ch.wq[n-1] = it
		ch.m.c.skipped.Add(1)
	} else {
		ch.wq = append(ch.wq, it)
	}
	ch.wmu.Unlock()
	rmnp.Signal(ch.wwake)
}

// readLoop reads the worker's half of the handshake, then its frames, and
// queues each toward the peer gateway. The worker's end of the connection
// closing ends the channel.
func (ch *gwChan) readLoop() {
	defer ch.m.closeChan(ch, true)
	fr := rmnp.NewFrameReader(ch.conn, ch.m.g.cfg.MaxFrame)
	sizes := []int{rmnp.AcceptSize, rmnp.DoneSize}
	if ch.dialerSide {
		sizes = []int{rmnp.HelloSize, rmnp.AuthSize}
	}
	for i, n := range sizes {
		b := make([]byte, n)
		if err := fr.ReadFull(b, false); err != nil {
			return
		}
		if !ch.dialerSide && i == 0 {
			ch.version.Store(uint32(b[4]))
		}
		ch.m.enqueue(ch, &relayItem{op: opHandshake, body: b})
	}
	fr.Version = uint8(ch.version.Load())
	for {
		h, err := fr.Next()
		if err != nil {
			return
		}
		switch h.Typ() {
		case rmnp.TypePing:
			ch.m.enqueue(ch, &relayItem{op: opPing})
			continue
		case rmnp.TypeGoAway:
			ch.m.enqueue(ch, &relayItem{op: opGoAway})
			continue
		}
		body := make([]byte, h.Raw())
		if err := fr.Payload(h, body); err != nil {
			return
		}
		ch.m.enqueue(ch, &relayItem{op: opMsg, iflags: h.Flags() &^ rmnp.WireCompressed, body: body})
	}
}

// writeLoop writes what the peer gateway sent to the worker: handshake
// bytes as they are, messages as frames of the worker link's version with
// this leg's own sequence numbers (an asynchronous DATA replaced on the way
// leaves no gap).
func (ch *gwChan) writeLoop() {
	var seq [2]uint32
	var h rmnp.Header
	for {
		select {
		case <-ch.wwake:
		case <-ch.done:
			return
		}
		for {
			ch.wmu.Lock()
			if len(ch.wq) == 0 {
				ch.wmu.Unlock()
				break
			}
			it := ch.wq[0]
			ch.wq = ch.wq[1:]
			ch.wmu.Unlock()
			var b []byte
			v := uint8(ch.version.Load())
			switch it.op {
			case opHandshake:
				if ch.dialerSide && len(it.body) == rmnp.AcceptSize {
					ch.version.Store(uint32(it.body[4]))
				}
				b = it.body
			case opPing:
				h.EncodeV(v, rmnp.TypePing, 0, 0, 0, 0)
				b = h[:]
			case opGoAway:
				h.EncodeV(v, rmnp.TypeGoAway, 0, 0, 0, 0)
				b = h[:]
			case opMsg:
				i := 0
				if it.iflags&rmnp.WireDATA != 0 {
					i = 1
				}
				seq[i]++
				h.EncodeV(v, rmnp.TypeMsg, it.iflags, uint32(len(it.body)), uint32(len(it.body)), seq[i])
				// One writev: header, pad and the reassembled body, uncopied.
				bufs := net.Buffers{h[:], rmnp.ZeroPad[:h.Pad()], it.body}
				if _, err := bufs.WriteTo(ch.conn); err != nil {
					ch.m.closeChan(ch, true)
					return
				}
				continue
			case opClose:
				ch.shut()
				return
			default:
				continue
			}
			if _, err := ch.conn.Write(b); err != nil {
				ch.m.closeChan(ch, true)
				return
			}
		}
	}
}
