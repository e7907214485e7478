package gateway

import (
	"bytes"
	"errors"
	"github.com/gridtui/gridtui/rmnp"
	"io"
	"net"
	"testing"
	"testing/iotest"
)

// captureConn records what a gateway link's writer writes.
type captureConn struct {
	net.Conn
	buf bytes.Buffer
}

func (c *captureConn) Write(b []byte) (int, error) { return c.buf.Write(b) }

// seedRelay returns a real gateway link stream, as the writer produces it:
// an OPEN, handshake bytes, a compressed multi-chunk DATA, a CTRL, an
// asynchronous DATA and a CLOSE.
func seedRelay() []byte {
	c := &captureConn{}
	m := newMux(&Gateway{cfg: GatewayConfig{Compress: true}}, c, GatewayPeer{Name: "g2"}, true)
	ch := m.newChan(nil, true)
	items := []*relayItem{
		{op: opOpen, body: []byte("tcp://198.18.34.11:4000")},
		{op: opHandshake, body: make([]byte, rmnp.HelloSize)},
		{op: opMsg, iflags: rmnp.WireDATA, body: bytes.Repeat([]byte("halo"), dataChunk/2)},
		{op: opMsg, iflags: rmnp.WireCTRL, body: []byte("tok_conv")},
		{op: opMsg, iflags: rmnp.WireDATA | rmnp.WireAsync, body: []byte{1, 2, 3}},
		{op: opPing},
		{op: opClose},
	}
	for _, it := range items {
		for it.off < len(it.body) || (it.off == 0 && !it.started) {
			it.started = true
			n, _ := m.writeChunk(ch, it)
			it.off += n
			if len(it.body) == 0 {
				break
			}
		}
	}
	var ping rmnp.Header
	ping.EncodeV(rmnp.ProtoVersion, rmnp.TypePing, 0, 0, 0, 0)
	return append(c.buf.Bytes(), ping[:]...)
}

// decodeRelay runs the gateway link's reader over r until an error.
func decodeRelay(r io.Reader) error {
	rr := relayReader{src: r, maxFrame: fuzzMaxFrame}
	for {
		if _, err := rr.Next(); err != nil {
			return err
		}
	}
}

func TestRelayReaderSeed(t *testing.T) {
	s := seedRelay()
	if err := decodeRelay(bytes.NewReader(s)); err != io.EOF {
		t.Fatalf("seed stream: %v, want EOF after the last frame", err)
	}
	bad := bytes.Clone(s)
	bad[16+4] = opCount // the first relay header's op
	if err := decodeRelay(bytes.NewReader(bad)); !errors.Is(err, rmnp.ErrFrame) {
		t.Fatalf("unknown op: %v", err)
	}
}

// FuzzRelayReader feeds arbitrary bytes to the gateway link's frame reader,
// whole and in one-byte reads: it must return an error, never panic, hang
// or allocate beyond its frame bound.
func FuzzRelayReader(f *testing.F) {
	s := seedRelay()
	f.Add(s)
	f.Add(s[:40])
	f.Add(s[:16])
	f.Fuzz(func(t *testing.T, b []byte) {
		e1 := decodeRelay(bytes.NewReader(b))
		e2 := decodeRelay(iotest.OneByteReader(bytes.NewReader(b)))
		if (e1 == io.EOF) != (e2 == io.EOF) {
			t.Fatalf("whole: %v, byte by byte: %v", e1, e2)
		}
	})
}

// FuzzRouteRequest feeds arbitrary bytes to the gateway's route request
// decoder; whatever it accepts encodes back to the same bytes.
func FuzzRouteRequest(f *testing.F) {
	good, _ := rmnp.RouteRequest{Via: "g2", To: "tcp://198.18.34.11:4000"}.Encode()
	f.Add(good)
	f.Add(good[:10])
	f.Add([]byte("RMNP"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := rmnp.ReadRouteRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		again, err := r.Encode()
		if err != nil || !bytes.Equal(again, b[:len(again)]) {
			t.Fatalf("accepted %q, re-encodes to %q (%v)", b, again, err)
		}
	})
}
