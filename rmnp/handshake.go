package rmnp

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// Handshake message sizes and constants (spec.md §3).
const (
	HelloSize  = 96
	AcceptSize = 80
	AuthSize   = 36
	DoneSize   = 8
	nonceSize  = 32
	macSize    = sha256.Size

	orderLittle uint8 = 1
	orderBig    uint8 = 2

	optCompress uint8 = 1
)

// ACCEPT and DONE status codes.
const (
	statusOK uint8 = iota
	statusVersion
	statusRun
	statusPeer
	statusMAC
	statusClosing
)

var Magic = [4]byte{'R', 'M', 'N', 'P'}

var (
	labelAccept = []byte("rmnp1 accept")
	labelDial   = []byte("rmnp1 dial")
)

// hostOrder is this machine's byte order, reported at handshake; float64 payloads are
// reinterpreted in place only when it is little-endian (the wire order).
var hostOrder = func() uint8 {
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return orderLittle
	}
	return orderBig
}()

// hello is the dialer's first message (spec.md §3.1).
type hello struct {
	version, order, mode, options uint8
	run                           [16]byte
	from, to                      PeerID
	nonce                         [nonceSize]byte
	label                         string
}

func (h *hello) Encode(b *[HelloSize]byte) {
	*b = [HelloSize]byte{}
	copy(b[0:4], Magic[:])
	b[4], b[5], b[6], b[7] = h.version, h.order, h.mode, h.options
	copy(b[8:24], h.run[:])
	binary.LittleEndian.PutUint32(b[24:28], uint32(h.from))
	binary.LittleEndian.PutUint32(b[28:32], uint32(h.to))
	copy(b[32:64], h.nonce[:])
	b[64] = uint8(len(h.label))
	copy(b[65:96], h.label)
}

// decodeHello parses a HELLO; it checks only what can be checked without the
// endpoint's state (magic, label length, padding, known values).
func decodeHello(b []byte) (hello, error) {
	var h hello
	if len(b) != HelloSize {
		return h, fmt.Errorf("%w: hello of %d bytes", ErrAuth, len(b))
	}
	if !bytes.Equal(b[0:4], Magic[:]) {
		return h, fmt.Errorf("%w: bad magic %q", ErrAuth, b[0:4])
	}
	h.version, h.order, h.mode, h.options = b[4], b[5], b[6], b[7]
	if h.version < minVersion {
		return h, fmt.Errorf("%w: peer speaks version %d", ErrVersion, h.version)
	}
	if h.order != orderLittle && h.order != orderBig {
		return h, fmt.Errorf("%w: byte order %d", ErrAuth, h.order)
	}
	if h.mode > uint8(Async) || h.options&^optCompress != 0 {
		return h, fmt.Errorf("%w: mode %d options 0x%02x", ErrAuth, h.mode, h.options)
	}
	copy(h.run[:], b[8:24])
	h.from = PeerID(binary.LittleEndian.Uint32(b[24:28]))
	h.to = PeerID(binary.LittleEndian.Uint32(b[28:32]))
	copy(h.nonce[:], b[32:64])
	n := int(b[64])
	if n > 31 || !allZero(b[65+n:96]) {
		return h, fmt.Errorf("%w: network label length %d", ErrAuth, n)
	}
	h.label = string(b[65 : 65+n])
	return h, nil
}

// accept is the acceptor's answer (spec.md §3.2).
type accept struct {
	version, order, status, options uint8
	id                              PeerID
	nonce                           [nonceSize]byte
	mac                             [macSize]byte
}

func (a *accept) Encode(b *[AcceptSize]byte) {
	*b = [AcceptSize]byte{}
	copy(b[0:4], Magic[:])
	b[4], b[5], b[6], b[7] = a.version, a.order, a.status, a.options
	binary.LittleEndian.PutUint32(b[8:12], uint32(a.id))
	copy(b[16:48], a.nonce[:])
	copy(b[48:80], a.mac[:])
}

func decodeAccept(b []byte) (accept, error) {
	var a accept
	if len(b) != AcceptSize {
		return a, fmt.Errorf("%w: accept of %d bytes", ErrAuth, len(b))
	}
	if !bytes.Equal(b[0:4], Magic[:]) {
		return a, fmt.Errorf("%w: bad magic %q", ErrAuth, b[0:4])
	}
	a.version, a.order, a.status, a.options = b[4], b[5], b[6], b[7]
	a.id = PeerID(binary.LittleEndian.Uint32(b[8:12]))
	copy(a.nonce[:], b[16:48])
	copy(a.mac[:], b[48:80])
	if a.version < minVersion || a.version > ProtoVersion {
		return a, fmt.Errorf("%w: peer speaks version %d", ErrVersion, a.version)
	}
	if a.status != statusOK {
		return a, statusError(a.status)
	}
	if a.order != orderLittle && a.order != orderBig || a.options&^optCompress != 0 ||
		!allZero(b[12:16]) {
		return a, fmt.Errorf("%w: malformed accept", ErrAuth)
	}
	return a, nil
}

func statusError(s uint8) error {
	switch s {
	case statusVersion:
		return fmt.Errorf("%w: refused by peer", ErrVersion)
	case statusRun:
		return ErrOtherRun
	case statusPeer:
		return fmt.Errorf("%w: peer has another id", ErrAuth)
	case statusMAC:
		return fmt.Errorf("%w: peer rejected our mac", ErrAuth)
	case statusClosing:
		return fmt.Errorf("%w: peer is closing", ErrPeerClosed)
	}
	return fmt.Errorf("%w: status %d", ErrAuth, s)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func mac(secret, label []byte, parts ...[]byte) [macSize]byte {
	m := hmac.New(sha256.New, secret)
	m.Write(label)
	for _, p := range parts {
		m.Write(p)
	}
	var out [macSize]byte
	m.Sum(out[:0])
	return out
}

// linkInfo is what a handshake establishes about a link.
type linkInfo struct {
	version   uint8 // agreed protocol version
	Peer      PeerID
	mode      Mode
	Label     string
	compress  bool
	peerOrder uint8
	// congestion is the TCP congestion control the link ended with (set when
	// it is added, not negotiated; "" for Unix sockets).
	congestion string
}

// DialHandshake runs the dialer's side of spec.md §3 on rw.
func DialHandshake(rw io.ReadWriter, cfg *Config, to PeerID, opts LinkOptions) (linkInfo, error) {
	h := hello{version: cmp.Or(opts.maxVersion, ProtoVersion), order: hostOrder, mode: uint8(opts.Mode),
		run: cfg.RunID, from: cfg.Self, to: to, label: opts.Network}
	if opts.Compress {
		h.options = optCompress
	}
	if _, err := rand.Read(h.nonce[:]); err != nil {
		return linkInfo{}, err
	}
	var hb [HelloSize]byte
	h.Encode(&hb)
	if _, err := rw.Write(hb[:]); err != nil {
		return linkInfo{}, err
	}
	var ab [AcceptSize]byte
	if _, err := io.ReadFull(rw, ab[:]); err != nil {
		return linkInfo{}, fmt.Errorf("%w: reading accept: %w", ErrAuth, err)
	}
	a, err := decodeAccept(ab[:])
	if err != nil {
		return linkInfo{}, err
	}
	if a.id != to {
		return linkInfo{}, fmt.Errorf("%w: reached peer %d, wanted %d", ErrAuth, a.id, to)
	}
	if a.version > h.version {
		return linkInfo{}, fmt.Errorf("%w: peer chose version %d, we offered up to %d", ErrVersion, a.version, h.version)
	}
	want := mac(cfg.Secret, labelAccept, hb[:], ab[:48])
	if !hmac.Equal(want[:], a.mac[:]) {
		return linkInfo{}, fmt.Errorf("%w: peer's mac does not match our secret", ErrAuth)
	}
	var auth [AuthSize]byte
	copy(auth[0:4], Magic[:])
	m := mac(cfg.Secret, labelDial, hb[:], ab[:])
	copy(auth[4:], m[:])
	if _, err := rw.Write(auth[:]); err != nil {
		return linkInfo{}, err
	}
	var done [DoneSize]byte
	if _, err := io.ReadFull(rw, done[:]); err != nil {
		return linkInfo{}, fmt.Errorf("%w: reading done: %w", ErrAuth, err)
	}
	if !bytes.Equal(done[0:4], Magic[:]) || !allZero(done[5:]) {
		return linkInfo{}, fmt.Errorf("%w: malformed done", ErrAuth)
	}
	if done[4] != statusOK {
		return linkInfo{}, statusError(done[4])
	}
	return linkInfo{Peer: to, mode: opts.Mode, Label: opts.Network, version: a.version,
		compress: a.options&optCompress != 0, peerOrder: a.order}, nil
}

// AcceptHandshake runs the acceptor's side of spec.md §3 on rw. closing reports
// whether the endpoint is shutting down.
func AcceptHandshake(rw io.ReadWriter, cfg *Config, closing bool) (linkInfo, error) {
	var hb [HelloSize]byte
	if _, err := io.ReadFull(rw, hb[:]); err != nil {
		return linkInfo{}, fmt.Errorf("%w: reading hello: %w", ErrAuth, err)
	}
	h, err := decodeHello(hb[:])
	// The link speaks the highest version both ends know (the dialer offers
	// every version up to h.version).
	a := accept{version: min(h.version, ProtoVersion), order: hostOrder, id: cfg.Self}
	if err != nil {
		a.version = ProtoVersion
	}
	switch {
	case errors.Is(err, ErrVersion):
		a.status = statusVersion
	case err != nil:
		return linkInfo{}, err // garbage: no answer
	case h.run != cfg.RunID:
		a.status, err = statusRun, fmt.Errorf("%w: hello for another run", ErrAuth)
	case h.to != cfg.Self || h.from == cfg.Self:
		a.status, err = statusPeer, fmt.Errorf("%w: hello from %d for peer %d", ErrAuth, h.from, h.to)
	case closing:
		a.status, err = statusClosing, ErrClosed
	}
	var ab [AcceptSize]byte
	if a.status != statusOK {
		// Nothing about this endpoint before the MACs are checked: no peer id,
		// no byte order (the dialer learns only which of its own claims failed).
		a.id, a.order = 0, 0
		a.Encode(&ab)
		_, _ = rw.Write(ab[:])
		return linkInfo{}, err
	}
	if h.options&optCompress != 0 && cfg.AllowCompress {
		a.options = optCompress
	}
	if _, err := rand.Read(a.nonce[:]); err != nil {
		return linkInfo{}, err
	}
	a.Encode(&ab)
	a.mac = mac(cfg.Secret, labelAccept, hb[:], ab[:48])
	a.Encode(&ab)
	if _, err := rw.Write(ab[:]); err != nil {
		return linkInfo{}, err
	}
	var auth [AuthSize]byte
	if _, err := io.ReadFull(rw, auth[:]); err != nil {
		return linkInfo{}, fmt.Errorf("%w: reading auth from peer %d: %w", ErrAuth, h.from, err)
	}
	want := mac(cfg.Secret, labelDial, hb[:], ab[:])
	done := [DoneSize]byte{'R', 'M', 'N', 'P'}
	if !bytes.Equal(auth[0:4], Magic[:]) || !hmac.Equal(want[:], auth[4:]) {
		done[4] = statusMAC
		_, _ = rw.Write(done[:])
		return linkInfo{}, fmt.Errorf("%w: bad mac from peer %d (wrong secret or replay)", ErrAuth, h.from)
	}
	if _, err := rw.Write(done[:]); err != nil {
		return linkInfo{}, err
	}
	return linkInfo{Peer: h.from, mode: Mode(h.mode), Label: h.label, version: a.version,
		compress: a.options&optCompress != 0, peerOrder: h.order}, nil
}
