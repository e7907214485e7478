package gateway

import (
	"encoding/binary"
	"fmt"
	"github.com/gridtui/gridtui/rmnp"
	"io"

	"github.com/klauspost/compress/s2"
)

// Relay operations (spec.md §8.3).
const (
	opOpen uint8 = iota + 1
	opOpened
	opHandshake
	opMsg
	opPing
	opGoAway
	opClose
	opCount
)

// relayHeaderSize is the relay header at the start of a RELAY frame's payload.
const relayHeaderSize = 8

// relayHeader is the relay header of a RELAY frame: channel, operation, the
// inner frame's flags (opMsg) and whether this chunk ends its message.
type relayHeader struct {
	channel uint32
	op      uint8
	iflags  uint8
	last    bool
}

func (r relayHeader) put(b []byte) {
	binary.LittleEndian.PutUint32(b[0:4], r.channel)
	b[4], b[5], b[6], b[7] = r.op, r.iflags, 0, 0
	if r.last {
		b[6] = 1
	}
}

// relayFrame is one decoded RELAY frame: its relay header and its body
// (decompressed).
type relayFrame struct {
	relayHeader
	body []byte
}

// relayReader decodes the frames of a gateway link (spec.md §8.3). Like
// frameReader it validates every header field before reading any payload
// byte, so a hostile peer can make it allocate at most maxFrame bytes.
type relayReader struct {
	src      io.Reader
	maxFrame uint32
	seq      uint32
	hdr      rmnp.Header
	buf, z   []byte
}

// Next reads the next frame. A PING or GOAWAY comes back as a relayFrame
// whose op is 0 and iflags the frame type.
func (rr *relayReader) Next() (relayFrame, error) {
	h := &rr.hdr
	if _, err := io.ReadFull(rr.src, h[:]); err != nil {
		return relayFrame{}, err
	}
	if err := rr.check(h); err != nil {
		return relayFrame{}, err
	}
	if h.Typ() != rmnp.TypeRelay {
		return relayFrame{relayHeader: relayHeader{iflags: h.Typ()}}, nil
	}
	n := int(h.Length())
	if cap(rr.z) < n {
		rr.z = make([]byte, n)
	}
	p := rr.z[:n]
	if _, err := io.ReadFull(rr.src, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return relayFrame{}, err
	}
	f := relayFrame{relayHeader: relayHeader{channel: binary.LittleEndian.Uint32(p[0:4]), op: p[4], iflags: p[5], last: p[6] == 1}}
	if f.op == 0 || f.op >= opCount || p[6] > 1 || p[7] != 0 {
		return relayFrame{}, fmt.Errorf("%w: relay header op %d last %d reserved %d", rmnp.ErrFrame, f.op, p[6], p[7])
	}
	if !validInner(f.op, f.iflags) {
		return relayFrame{}, fmt.Errorf("%w: relay op %d with inner flags 0x%02x", rmnp.ErrFrame, f.op, f.iflags)
	}
	body := p[relayHeaderSize:]
	if h.Flags()&rmnp.WireCompressed == 0 {
		f.body = body
		return f, nil
	}
	want := int(h.Raw()) - relayHeaderSize
	dl, err := s2.DecodedLen(body)
	if err != nil || dl != want {
		return relayFrame{}, fmt.Errorf("%w: relay s2 block of %d bytes, header says %d", rmnp.ErrFrame, dl, want)
	}
	if cap(rr.buf) < want {
		rr.buf = make([]byte, want)
	}
	out, err := s2.Decode(rr.buf[:want], body)
	if err != nil || len(out) != want {
		return relayFrame{}, fmt.Errorf("%w: relay s2: %v", rmnp.ErrFrame, err)
	}
	f.body = out
	return f, nil
}

// check validates a gateway link's frame header (spec.md §8.3).
func (rr *relayReader) check(h *rmnp.Header) error {
	switch {
	case h.Version() != rmnp.ProtoVersion:
		return fmt.Errorf("%w: gateway frame of version %d", rmnp.ErrVersion, h.Version())
	case h.Typ() != rmnp.TypeRelay && h.Typ() != rmnp.TypePing && h.Typ() != rmnp.TypeGoAway:
		return fmt.Errorf("%w: gateway link: frame type %d", rmnp.ErrFrame, h.Typ())
	case h.Pad() != 0:
		return fmt.Errorf("%w: gateway link: pad %d", rmnp.ErrFrame, h.Pad())
	}
	if h.Typ() != rmnp.TypeRelay {
		if h.Flags() != 0 || h.Length() != 0 || h.Raw() != 0 || h.Seq() != 0 {
			return fmt.Errorf("%w: control frame with fields set (%v)", rmnp.ErrFrame, h)
		}
		return nil
	}
	switch {
	case h.Flags()&^rmnp.WireCompressed != 0:
		return fmt.Errorf("%w: relay flags 0x%02x", rmnp.ErrFrame, h.Flags())
	case h.Length() < relayHeaderSize || h.Raw() < relayHeaderSize:
		return fmt.Errorf("%w: relay frame shorter than its relay header (%v)", rmnp.ErrFrame, h)
	case h.Length() > rr.maxFrame || h.Raw() > rr.maxFrame:
		return fmt.Errorf("%w: oversize (%v, max %d)", rmnp.ErrFrame, h, rr.maxFrame)
	case h.Flags()&rmnp.WireCompressed == 0 && h.Raw() != h.Length():
		return fmt.Errorf("%w: raw %d != length %d without compression", rmnp.ErrFrame, h.Raw(), h.Length())
	case h.Seq() != rr.seq+1:
		return fmt.Errorf("%w: relay seq %d after %d", rmnp.ErrFrame, h.Seq(), rr.seq)
	}
	rr.seq = h.Seq()
	return nil
}

// validInner reports whether inner flags fit a relay operation: a message
// carries exactly one of CTRL and DATA, ASYNC only on DATA, never COMPRESSED
// (the gateway link compresses whole chunks); other operations carry none.
func validInner(op, f uint8) bool {
	if op != opMsg {
		return f == 0
	}
	switch f &^ rmnp.WireAsync {
	case rmnp.WireCTRL:
		return f&rmnp.WireAsync == 0
	case rmnp.WireDATA:
		return true
	}
	return false
}
