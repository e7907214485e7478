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

// Header is a frame header (spec.md §4) with accessors, as yamux's header.
type Header [HeaderSize]byte

func (h *Header) Version() uint8 { return h[0] }
func (h *Header) Typ() uint8     { return h[1] }
func (h *Header) Flags() uint8   { return h[2] }
func (h *Header) Length() uint32 { return binary.LittleEndian.Uint32(h[4:8]) }
func (h *Header) Raw() uint32    { return binary.LittleEndian.Uint32(h[8:12]) }
func (h *Header) Seq() uint32    { return binary.LittleEndian.Uint32(h[12:16]) }
func (h *Header) Pad() int       { return int(h[3]) }

// Size returns the bytes of the whole frame on the wire: header, pad, payload.
func (h *Header) Size() uint64 { return uint64(HeaderSize + h.Pad() + int(h.Length())) }

// kind returns the public message kind (CTRL or DATA) of a MSG frame.
func (h *Header) kind() Flags { return Flags(h.Flags()) & kindMask }

// Encode fills the header for the current protocol version.
func (h *Header) Encode(typ, flags uint8, length, raw, seq uint32) {
	h.EncodeV(ProtoVersion, typ, flags, length, raw, seq)
}

// EncodeV fills the header for version v, with the pad that version asks for.
func (h *Header) EncodeV(v, typ, flags uint8, length, raw, seq uint32) {
	h[0] = v
	h[1] = typ
	h[2] = flags
	h[3] = uint8(padFor(v, typ, length))
	binary.LittleEndian.PutUint32(h[4:8], length)
	binary.LittleEndian.PutUint32(h[8:12], raw)
	binary.LittleEndian.PutUint32(h[12:16], seq)
}

// String formats the header for logs.
func (h *Header) String() string {
	return fmt.Sprintf("v%d type=%d flags=0x%02x pad=%d len=%d raw=%d seq=%d",
		h.Version(), h.Typ(), h.Flags(), h.Pad(), h.Length(), h.Raw(), h.Seq())
}

// frameReader decodes the frames of one connection. It validates every header field
// against spec.md §4 before any payload byte is read, so a hostile peer can make it
// allocate at most maxFrame bytes.
type frameReader struct {
	src      io.Reader
	buf      []byte // read-ahead: buf[r:w] are stream bytes not consumed yet
	r, w     int
	maxFrame uint32
	Version  uint8 // the link's protocol version
	hdr      Header
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

func NewFrameReader(r io.Reader, maxFrame int) *frameReader {
	return &frameReader{src: r, buf: make([]byte, readBuffer), maxFrame: uint32(maxFrame), Version: ProtoVersion}
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

// Next reads and validates the next header, and skips its pad.
func (fr *frameReader) Next() (*Header, error) {
	h := &fr.hdr
	if err := fr.ReadFull(h[:], true); err != nil {
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
func (fr *frameReader) skipPad(h *Header) error {
	n := h.Pad()
	if n == 0 {
		return nil
	}
	if err := fr.ReadFull(fr.pad[:n], false); err != nil {
		return err
	}
	return checkPad(fr.pad[:n])
}

func checkPad(b []byte) error {
	if !bytes.Equal(b, ZeroPad[:len(b)]) { // memequal: a byte loop showed in the 64 KiB profile

		return fmt.Errorf("%w: non-zero pad", ErrFrame)
	}
	return nil
}

func (fr *frameReader) check(h *Header) error {
	switch {
	case h.Version() != fr.Version:
		return fmt.Errorf("%w: frame of version %d on a version %d link", ErrVersion, h.Version(), fr.Version)
	case h.Typ() >= typeCount:
		return fmt.Errorf("%w: unknown type %d", ErrFrame, h.Typ())
	case h.Flags()&^wireKnown != 0:
		return fmt.Errorf("%w: reserved bits set (%v)", ErrFrame, h)
	case h.Length() > fr.maxFrame || h.Raw() > fr.maxFrame:
		return fmt.Errorf("%w: oversize (%v, max %d)", ErrFrame, h, fr.maxFrame)
	case h.Pad() != padFor(fr.Version, h.Typ(), h.Length()):
		return fmt.Errorf("%w: pad %d, want %d (%v)", ErrFrame, h.Pad(), padFor(fr.Version, h.Typ(), h.Length()), h)
	}
	if h.Typ() != TypeMsg {
		if h.Flags() != 0 || h.Length() != 0 || h.Raw() != 0 || h.Seq() != 0 {
			return fmt.Errorf("%w: control frame with fields set (%v)", ErrFrame, h)
		}
		return nil
	}
	k := h.kind()
	if k != CTRL && k != DATA {
		return fmt.Errorf("%w: message kind 0x%02x", ErrFrame, h.Flags())
	}
	comp := h.Flags()&WireCompressed != 0
	if comp && k != DATA {
		return fmt.Errorf("%w: compressed CTRL", ErrFrame)
	}
	if !comp && h.Raw() != h.Length() {
		return fmt.Errorf("%w: raw %d != length %d without compression", ErrFrame, h.Raw(), h.Length())
	}
	i := 0
	if k == DATA {
		i = 1
	}
	if h.Seq() != fr.seq[i]+1 {
		return fmt.Errorf("%w: %v seq %d after %d", ErrFrame, k, h.Seq(), fr.seq[i])
	}
	fr.seq[i] = h.Seq()
	return nil
}

// Payload reads the current frame's payload into dst, which must hold h.raw() bytes,
// decompressing if needed.
func (fr *frameReader) Payload(h *Header, dst []byte) error {
	if h.Flags()&WireCompressed == 0 {
		return fr.ReadFull(dst[:h.Length()], false)
	}
	n := int(h.Length())
	if cap(fr.zbuf) < n {
		fr.zbuf = make([]byte, n)
	}
	z := fr.zbuf[:n]
	if err := fr.ReadFull(z, false); err != nil {
		return err
	}
	dl, err := s2.DecodedLen(z)
	if err != nil || dl != int(h.Raw()) {
		return fmt.Errorf("%w: s2 block of %d bytes, header says %d", ErrFrame, dl, h.Raw())
	}
	out, err := s2.Decode(dst[:h.Raw()], z)
	if err != nil {
		return fmt.Errorf("%w: s2: %w", ErrFrame, err)
	}
	if len(out) != int(h.Raw()) {
		return fmt.Errorf("%w: s2 decoded %d bytes, header says %d", ErrFrame, len(out), h.Raw())
	}
	return nil
}

// ReadFull reads len(dst) bytes, asking fr.retry on timeouts.
func (fr *frameReader) ReadFull(dst []byte, boundary bool) error {
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
