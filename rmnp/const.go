package rmnp

import (
	"errors"
	"fmt"
	"time"
)

// Protocol versions (spec.md §6). An endpoint speaks every version from
// minVersion to protoVersion; a link speaks the highest both ends know, agreed in
// the handshake, and every frame header carries it.
const (
	minVersion   uint8 = 1
	ProtoVersion uint8 = 2
)

// PeerID identifies a worker (a subtask rank in the paper's GRID_Send) within a run.
type PeerID uint32

// Flags select the kind of a message, as the paper's CTRL_FLAG and DATA_FLAG, plus
// per-call options.
type Flags uint8

const (
	// CTRL marks a control message (tokens, activate/inactivate, terminate): always
	// reliable and in order, whatever the link's mode.
	CTRL Flags = 1 << iota
	// DATA marks a data message (an update of the iterate vector): reliable FIFO on a
	// synchronous link, latest-value on an asynchronous one.
	DATA
	// NoWait makes Receive return ErrNoMessage at once if nothing is buffered.
	NoWait
)

// kindMask keeps the message-kind bits of a Flags value.
const kindMask = CTRL | DATA

// String returns the flags as "CTRL", "DATA|NoWait", ...
func (f Flags) String() string {
	s := ""
	add := func(name string) {
		if s != "" {
			s += "|"
		}
		s += name
	}
	if f&CTRL != 0 {
		add("CTRL")
	}
	if f&DATA != 0 {
		add("DATA")
	}
	if f&NoWait != 0 {
		add("NoWait")
	}
	if rest := f &^ (CTRL | DATA | NoWait); rest != 0 {
		add(fmt.Sprintf("0x%02x", uint8(rest)))
	}
	if s == "" {
		return "0"
	}
	return s
}

// Mode is the communication mode of a link, chosen by the engine from the iteration
// scheme and the pair's locality (hybrid: Sync inside a cluster, Async between).
type Mode uint8

const (
	// Sync links carry DATA reliably and in order; Receive blocks until it arrives.
	Sync Mode = iota
	// Async links carry DATA as latest-value updates (AIAC): newer replaces older.
	Async
)

// String returns "sync" or "async".
func (m Mode) String() string {
	switch m {
	case Sync:
		return "sync"
	case Async:
		return "async"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// frame types (spec.md §4).
const (
	TypeMsg uint8 = iota
	TypePing
	TypeGoAway
	typeCount
)

// wire flags (spec.md §4): the low bits are the public CTRL/DATA.
const (
	WireCTRL       = uint8(CTRL)
	WireDATA       = uint8(DATA)
	WireCompressed = uint8(1 << 4)
	WireAsync      = uint8(1 << 5)
	wireKnown      = WireCTRL | WireDATA | WireCompressed | WireAsync
)

// HeaderSize is the size of a frame header.
const HeaderSize = 16

// Payload alignment (spec.md §4, version 2): a MSG frame whose wire payload holds
// at least padMin bytes has maxPad zero bytes after its header, so that the payload
// starts frameAlign bytes after the frame does. The kernel's copies of a large
// payload then run at the alignment the payload has in the user's buffer on both
// sides; with the bare 16-byte header they ran 16 bytes off it, which the kernel's
// copy paid for on every large message (docs/bench/rmnp.md).
const (
	frameAlign = 64
	maxPad     = frameAlign - HeaderSize
	padMin     = 4 << 10
)

// padFor returns the pad bytes a frame of version v, type typ and wire payload
// length carries: maxPad or 0.
func padFor(v, typ uint8, length uint32) int {
	if v >= 2 && typ == TypeMsg && length >= padMin {
		return maxPad
	}
	return 0
}

// ZeroPad is the pad written after a header.
var ZeroPad [maxPad]byte

// Defaults of DefaultConfig.
const (
	DefaultMaxFrame    = 64 << 20
	defaultMaxBuffered = 256 << 20
	DefaultDialTimeout = 10 * time.Second
	defaultCloseWait   = 2 * time.Second

	// Pending handshakes (pending.go): the per-source bound leaves room for a
	// coordinator's 32 workers on two networks each dialing at once from one
	// host (the local grid dials from 127.0.0.1).
	defaultMaxPending          = 256
	defaultMaxPendingPerSource = 64
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrNoMessage is returned by Receive with NoWait when nothing is buffered.
	ErrNoMessage = errors.New("rmnp: no message")
	// ErrClosed is returned by every operation after Close, and by those Close interrupts.
	ErrClosed = errors.New("rmnp: endpoint closed")
	// ErrAuth reports a failed handshake: wrong secret, wrong run, replay, bad peer.
	ErrAuth = errors.New("rmnp: authentication failed")
	// ErrOtherRun reports a handshake the acceptor refused because the
	// dialer's run id is not its own (ACCEPT status 2); it wraps ErrAuth.
	// An engine that gives each attempt of a run its own id (a fence) sees
	// it while a peer is still in the attempt before, and retries.
	ErrOtherRun = fmt.Errorf("%w: peer belongs to another run", ErrAuth)
	// ErrVersion reports a peer speaking another protocol version.
	ErrVersion = errors.New("rmnp: unsupported protocol version")
	// ErrShortBuffer is returned by Receive when buf cannot hold the message; the
	// message stays buffered.
	ErrShortBuffer = errors.New("rmnp: buffer too small for message")
	// ErrUnknownPeer is returned by Send when no link to the destination is up.
	ErrUnknownPeer = errors.New("rmnp: no link to peer")
	// ErrPeerDown reports that the links to a peer died.
	ErrPeerDown = errors.New("rmnp: peer down")
	// ErrPeerClosed reports that the peer closed the link cleanly (GOAWAY).
	ErrPeerClosed = errors.New("rmnp: peer closed the link")
	// ErrFrame reports a malformed or oversize frame.
	ErrFrame = errors.New("rmnp: malformed frame")
	// ErrConfig reports an invalid Config or LinkOptions.
	ErrConfig = errors.New("rmnp: invalid configuration")
	// ErrFlags reports a Flags value without exactly one of CTRL and DATA.
	ErrFlags = errors.New("rmnp: flags must contain exactly one of CTRL and DATA")
)
