package rmnp

import (
	"encoding/binary"
	"fmt"
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
	hdr      header
	buf, z   []byte
}

// next reads the next frame. A PING or GOAWAY comes back as a relayFrame
// whose op is 0 and iflags the frame type.
func (rr *relayReader) next() (relayFrame, error) {
	h := &rr.hdr
	if _, err := io.ReadFull(rr.src, h[:]); err != nil {
		return relayFrame{}, err
	}
	if err := rr.check(h); err != nil {
		return relayFrame{}, err
	}
	if h.typ() != typeRelay {
		return relayFrame{relayHeader: relayHeader{iflags: h.typ()}}, nil
	}
	n := int(h.length())
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
		return relayFrame{}, fmt.Errorf("%w: relay header op %d last %d reserved %d", ErrFrame, f.op, p[6], p[7])
	}
	if !validInner(f.op, f.iflags) {
		return relayFrame{}, fmt.Errorf("%w: relay op %d with inner flags 0x%02x", ErrFrame, f.op, f.iflags)
	}
	body := p[relayHeaderSize:]
	if h.flags()&wireCompressed == 0 {
		f.body = body
		return f, nil
	}
	want := int(h.raw()) - relayHeaderSize
	dl, err := s2.DecodedLen(body)
	if err != nil || dl != want {
		return relayFrame{}, fmt.Errorf("%w: relay s2 block of %d bytes, header says %d", ErrFrame, dl, want)
	}
	if cap(rr.buf) < want {
		rr.buf = make([]byte, want)
	}
	out, err := s2.Decode(rr.buf[:want], body)
	if err != nil || len(out) != want {
		return relayFrame{}, fmt.Errorf("%w: relay s2: %v", ErrFrame, err)
	}
	f.body = out
	return f, nil
}

// check validates a gateway link's frame header (spec.md §8.3).
func (rr *relayReader) check(h *header) error {
	switch {
	case h.version() != protoVersion:
		return fmt.Errorf("%w: gateway frame of version %d", ErrVersion, h.version())
	case h.typ() != typeRelay && h.typ() != typePing && h.typ() != typeGoAway:
		return fmt.Errorf("%w: gateway link: frame type %d", ErrFrame, h.typ())
	case h.pad() != 0:
		return fmt.Errorf("%w: gateway link: pad %d", ErrFrame, h.pad())
	}
	if h.typ() != typeRelay {
		if h.flags() != 0 || h.length() != 0 || h.raw() != 0 || h.seq() != 0 {
			return fmt.Errorf("%w: control frame with fields set (%v)", ErrFrame, h)
		}
		return nil
	}
	switch {
	case h.flags()&^wireCompressed != 0:
		return fmt.Errorf("%w: relay flags 0x%02x", ErrFrame, h.flags())
	case h.length() < relayHeaderSize || h.raw() < relayHeaderSize:
		return fmt.Errorf("%w: relay frame shorter than its relay header (%v)", ErrFrame, h)
	case h.length() > rr.maxFrame || h.raw() > rr.maxFrame:
		return fmt.Errorf("%w: oversize (%v, max %d)", ErrFrame, h, rr.maxFrame)
	case h.flags()&wireCompressed == 0 && h.raw() != h.length():
		return fmt.Errorf("%w: raw %d != length %d without compression", ErrFrame, h.raw(), h.length())
	case h.seq() != rr.seq+1:
		return fmt.Errorf("%w: relay seq %d after %d", ErrFrame, h.seq(), rr.seq)
	}
	rr.seq = h.seq()
	return nil
}

// validInner reports whether inner flags fit a relay operation: a message
// carries exactly one of CTRL and DATA, ASYNC only on DATA, never COMPRESSED
// (the gateway link compresses whole chunks); other operations carry none.
func validInner(op, f uint8) bool {
	if op != opMsg {
		return f == 0
	}
	switch f &^ wireAsync {
	case wireCTRL:
		return f&wireAsync == 0
	case wireDATA:
		return true
	}
	return false
}
