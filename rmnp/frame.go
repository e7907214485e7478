package rmnp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/klauspost/compress/s2"
)

// header is a frame header (spec.md §4) with accessors, as yamux's header.
type header [headerSize]byte

func (h *header) version() uint8 { return h[0] }
func (h *header) typ() uint8     { return h[1] }
func (h *header) flags() uint8   { return h[2] }
func (h *header) length() uint32 { return binary.LittleEndian.Uint32(h[4:8]) }
func (h *header) raw() uint32    { return binary.LittleEndian.Uint32(h[8:12]) }
func (h *header) seq() uint32    { return binary.LittleEndian.Uint32(h[12:16]) }
func (h *header) pad() int       { return int(h[3]) }

// size returns the bytes of the whole frame on the wire: header, pad, payload.
func (h *header) size() uint64 { return uint64(headerSize + h.pad() + int(h.length())) }

// kind returns the public message kind (CTRL or DATA) of a MSG frame.
func (h *header) kind() Flags { return Flags(h.flags()) & kindMask }

// encode fills the header for the current protocol version.
func (h *header) encode(typ, flags uint8, length, raw, seq uint32) {
	h.encodeV(protoVersion, typ, flags, length, raw, seq)
}

// encodeV fills the header for version v, with the pad that version asks for.
func (h *header) encodeV(v, typ, flags uint8, length, raw, seq uint32) {
	h[0] = v
	h[1] = typ
	h[2] = flags
	h[3] = uint8(padFor(v, typ, length))
	binary.LittleEndian.PutUint32(h[4:8], length)
	binary.LittleEndian.PutUint32(h[8:12], raw)
	binary.LittleEndian.PutUint32(h[12:16], seq)
}

// String formats the header for logs.
func (h *header) String() string {
	return fmt.Sprintf("v%d type=%d flags=0x%02x pad=%d len=%d raw=%d seq=%d",
		h.version(), h.typ(), h.flags(), h.pad(), h.length(), h.raw(), h.seq())
}

// frameReader decodes the frames of one connection. It validates every header field
// against spec.md §4 before any payload byte is read, so a hostile peer can make it
// allocate at most maxFrame bytes.
type frameReader struct {
	src      io.Reader
	buf      []byte // read-ahead: buf[r:w] are stream bytes not consumed yet
	r, w     int
	maxFrame uint32
	version  uint8 // the link's protocol version
	hdr      header
	pad      [maxPad]byte // the pad after hdr, read and checked
	seq      [2]uint32    // last seq of CTRL, DATA
	zbuf     []byte       // compressed payload, reused
	// retry, if set, is asked what to do when a read times out (boundary: no byte
	// of the frame read yet): retry, or stop with the error it returns.
	retry func(boundary bool) (bool, error)
}

// readBuffer is the frame reader's read-ahead: big enough that a small message
// arrives in one read with its header, small enough that a large payload is mostly
// read straight into its destination (reads of at least readBuffer bypass it).
const readBuffer = 8 << 10

func newFrameReader(r io.Reader, maxFrame int) *frameReader {
	return &frameReader{src: r, buf: make([]byte, readBuffer), maxFrame: uint32(maxFrame), version: protoVersion}
}

// buffered returns the number of read-ahead bytes not consumed yet.
func (fr *frameReader) buffered() int { return fr.w - fr.r }

// read reads from the read-ahead, or from the source (directly for large p).
func (fr *frameReader) read(p []byte) (int, error) {
	if fr.r < fr.w {
		n := copy(p, fr.buf[fr.r:fr.w])
		fr.r += n
		return n, nil
	}
	if len(p) >= readBuffer {
		return fr.src.Read(p)
	}
	n, err := fr.src.Read(fr.buf)
	fr.r, fr.w = 0, n
	k := copy(p, fr.buf[:n])
	fr.r = k
	if k > 0 {
		err = nil // the error comes back on the next read
	}
	return k, err
}

// unread puts b back in front of the read-ahead (after a speculative read).
func (fr *frameReader) unread(b []byte) {
	if len(b) == 0 {
		return
	}
	rest := fr.w - fr.r
	if need := len(b) + rest; need > len(fr.buf) {
		nb := make([]byte, need)
		copy(nb[len(b):], fr.buf[fr.r:fr.w])
		fr.buf = nb
	} else {
		copy(fr.buf[len(b):], fr.buf[fr.r:fr.w])
	}
	copy(fr.buf, b)
	fr.r, fr.w = 0, len(b)+rest
}

// next reads and validates the next header, and skips its pad.
func (fr *frameReader) next() (*header, error) {
	h := &fr.hdr
	if err := fr.readFull(h[:], true); err != nil {
		return nil, err
	}
	if err := fr.check(h); err != nil {
		return nil, err
	}
	if err := fr.skipPad(h); err != nil {
		return nil, err
	}
	return h, nil
}

// skipPad reads the pad that follows the checked header h and checks it is zero.
func (fr *frameReader) skipPad(h *header) error {
	n := h.pad()
	if n == 0 {
		return nil
	}
	if err := fr.readFull(fr.pad[:n], false); err != nil {
		return err
	}
	return checkPad(fr.pad[:n])
}

func checkPad(b []byte) error {
	if !bytes.Equal(b, zeroPad[:len(b)]) { // memequal: a byte loop showed in the 64 KiB profile

		return fmt.Errorf("%w: non-zero pad", ErrFrame)
	}
	return nil
}

func (fr *frameReader) check(h *header) error {
	switch {
	case h.version() != fr.version:
		return fmt.Errorf("%w: frame of version %d on a version %d link", ErrVersion, h.version(), fr.version)
	case h.typ() >= typeCount:
		return fmt.Errorf("%w: unknown type %d", ErrFrame, h.typ())
	case h.flags()&^wireKnown != 0:
		return fmt.Errorf("%w: reserved bits set (%v)", ErrFrame, h)
	case h.length() > fr.maxFrame || h.raw() > fr.maxFrame:
		return fmt.Errorf("%w: oversize (%v, max %d)", ErrFrame, h, fr.maxFrame)
	case h.pad() != padFor(fr.version, h.typ(), h.length()):
		return fmt.Errorf("%w: pad %d, want %d (%v)", ErrFrame, h.pad(), padFor(fr.version, h.typ(), h.length()), h)
	}
	if h.typ() != typeMsg {
		if h.flags() != 0 || h.length() != 0 || h.raw() != 0 || h.seq() != 0 {
			return fmt.Errorf("%w: control frame with fields set (%v)", ErrFrame, h)
		}
		return nil
	}
	k := h.kind()
	if k != CTRL && k != DATA {
		return fmt.Errorf("%w: message kind 0x%02x", ErrFrame, h.flags())
	}
	comp := h.flags()&wireCompressed != 0
	if comp && k != DATA {
		return fmt.Errorf("%w: compressed CTRL", ErrFrame)
	}
	if !comp && h.raw() != h.length() {
		return fmt.Errorf("%w: raw %d != length %d without compression", ErrFrame, h.raw(), h.length())
	}
	i := 0
	if k == DATA {
		i = 1
	}
	if h.seq() != fr.seq[i]+1 {
		return fmt.Errorf("%w: %v seq %d after %d", ErrFrame, k, h.seq(), fr.seq[i])
	}
	fr.seq[i] = h.seq()
	return nil
}

// payload reads the current frame's payload into dst, which must hold h.raw() bytes,
// decompressing if needed.
func (fr *frameReader) payload(h *header, dst []byte) error {
	if h.flags()&wireCompressed == 0 {
		return fr.readFull(dst[:h.length()], false)
	}
	n := int(h.length())
	if cap(fr.zbuf) < n {
		fr.zbuf = make([]byte, n)
	}
	z := fr.zbuf[:n]
	if err := fr.readFull(z, false); err != nil {
		return err
	}
	dl, err := s2.DecodedLen(z)
	if err != nil || dl != int(h.raw()) {
		return fmt.Errorf("%w: s2 block of %d bytes, header says %d", ErrFrame, dl, h.raw())
	}
	out, err := s2.Decode(dst[:h.raw()], z)
	if err != nil {
		return fmt.Errorf("%w: s2: %w", ErrFrame, err)
	}
	if len(out) != int(h.raw()) {
		return fmt.Errorf("%w: s2 decoded %d bytes, header says %d", ErrFrame, len(out), h.raw())
	}
	return nil
}

// readFull reads len(dst) bytes, asking fr.retry on timeouts.
func (fr *frameReader) readFull(dst []byte, boundary bool) error {
	n := 0
	for n < len(dst) {
		k, err := fr.read(dst[n:])
		n += k
		if err == nil {
			continue
		}
		if fr.retry != nil && isTimeout(err) {
			again, rerr := fr.retry(boundary && n == 0)
			if again {
				continue
			}
			if rerr != nil {
				return rerr
			}
		}
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
