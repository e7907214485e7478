package rmnp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Endpoint is one worker's RMNP endpoint: it listens on each of its networks, holds
// one authenticated link per neighbour per network, and implements the paper's
// GRID_Send / GRID_Receive / GRID_Wait as Send, Receive and Wait. All methods are safe
// for concurrent use.
type Endpoint struct {
	cfg       Config
	runMu     sync.Mutex // guards cfg.RunID (SetRunID)
	log       *slog.Logger
	listeners []net.Listener
	addrs     []string

	mu          sync.Mutex
	peers       map[PeerID]*peer
	links       []*link             // every link ever up, for Stats
	handshaking map[net.Conn]string // accepted connections in handshake, and their source
	pendingFrom map[string]int      // handshakes in progress per source (pending.go)
	refusedN    atomic.Int64        // connections refused since the last warning
	refusedAt   atomic.Int64        // when that warning was logged (UnixNano)
	linkUp      chan struct{}       // closed and replaced whenever a link comes up
	anyReady    chan struct{}       // signalled whenever a message is buffered
	arrival     atomic.Uint64
	peerSnap    atomic.Pointer[map[PeerID]*peer] // copy of peers for lock-free lookups
	// peerCache maps id%len to the peer last looked up there: a halo exchange
	// talks to a handful of neighbours, found with one load instead of a map
	// lookup per message. Peers are never removed, so an entry never goes stale.
	peerCache [16]atomic.Pointer[peer]
	down      chan PeerDownEvent

	closed    chan struct{}
	isShut    atomic.Bool // set just before closed is closed: isClosed without a channel operation
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// PeerDownEvent reports that a link died: the peer's process exited, the network was
// cut, a frame was malformed, or the peer closed cleanly (Err wraps ErrPeerClosed).
type PeerDownEvent struct {
	// Peer is the peer at the other end of the link.
	Peer PeerID
	// Network is the link's network label.
	Network string
	// Addr is the peer's address on that network.
	Addr string
	// Err says why the link died.
	Err error
	// LinksLeft is the number of links to Peer still up; 0 means the peer is
	// unreachable.
	LinksLeft int
}

// peerDownQueue is the capacity of the PeerDown channel; events beyond it are logged
// and dropped rather than blocking a reader.
const peerDownQueue = 1024

// Listen validates cfg, binds every address of cfg.Listen and starts accepting
// authenticated links. ctx bounds only the binding.
func Listen(ctx context.Context, cfg Config) (*Endpoint, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Secret = slices.Clone(cfg.Secret)
	e := &Endpoint{
		cfg:         cfg,
		log:         cfg.Logger,
		peers:       make(map[PeerID]*peer),
		handshaking: make(map[net.Conn]string),
		pendingFrom: make(map[string]int),
		linkUp:      make(chan struct{}),
		anyReady:    make(chan struct{}, 1),
		down:        make(chan PeerDownEvent, peerDownQueue),
		closed:      make(chan struct{}),
	}
	var lc net.ListenConfig
	for _, a := range cfg.Listen {
		network, address, _ := ParseAddr(a)
		ln, err := lc.Listen(ctx, network, address)
		if err != nil && network == "unix" && removeStaleSocket(ctx, address) {
			ln, err = lc.Listen(ctx, network, address)
		}
		if err != nil {
			for _, l := range e.listeners {
				l.Close()
			}
			return nil, fmt.Errorf("rmnp: listen on %s: %w", a, err)
		}
		e.listeners = append(e.listeners, ln)
		e.addrs = append(e.addrs, FormatAddr(ln.Addr()))
	}
	for _, ln := range e.listeners {
		e.wg.Add(1)
		go e.acceptLoop(ln)
	}
	return e, nil
}

// removeStaleSocket removes the Unix socket file at path if nothing listens on it
// (left by a worker that crashed), and reports whether it did.
func removeStaleSocket(ctx context.Context, path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return false
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err == nil {
		c.Close()
		return false // alive: not ours to remove
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	return os.Remove(path) == nil
}

// Addrs returns the bound addresses in the syntax of Config.Listen, with real ports.
func (e *Endpoint) Addrs() []string { return slices.Clone(e.addrs) }

// Self returns this endpoint's peer id.
func (e *Endpoint) Self() PeerID { return e.cfg.Self }

func (e *Endpoint) isClosed() bool { return e.isShut.Load() }

func (e *Endpoint) acceptLoop(ln net.Listener) {
	defer e.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if e.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			e.log.Warn("rmnp: accept failed", "listener", ln.Addr().String(), "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		e.wg.Add(1)
		go e.acceptConn(c)
	}
}

// acceptConn authenticates one incoming connection; a failure is logged with the
// remote address and only that connection is dropped (spec.md §3).
func (e *Endpoint) acceptConn(c net.Conn) {
	defer e.wg.Done()
	if err := e.beginHandshake(c); err != nil {
		if err != ErrClosed {
			e.refused(c, err)
		}
		c.Close()
		return
	}
	_ = c.SetDeadline(time.Now().Add(e.cfg.DialTimeout))
	cfg := e.handshakeConfig()
	info, err := AcceptHandshake(c, &cfg, e.isClosed())
	if err == nil {
		err = c.SetDeadline(time.Time{})
	}
	if !e.endHandshake(c) && err == nil {
		err = ErrClosed
	}
	if err != nil {
		if err != ErrClosed {
			e.log.Warn("rmnp: rejected connection", "self", e.cfg.Self,
				"remote", RemoteName(c), "err", err)
		}
		c.Close()
		return
	}
	if err := e.addLink(c, info, false); err != nil {
		c.Close()
	}
}

func RemoteName(c net.Conn) string {
	if a := c.RemoteAddr(); a != nil && a.String() != "" && a.String() != "@" {
		return FormatAddr(a)
	}
	return FormatAddr(c.LocalAddr())
}

// Connect dials addr ("tcp://host:port" or "unix:///path"), authenticates, and adds
// a link to peer with the given options. The acceptor learns the options from the
// handshake. By convention (spec.md §2) the lower peer id dials.
func (e *Endpoint) Connect(ctx context.Context, peerID PeerID, addr string, opts LinkOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	if e.isClosed() {
		return ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.DialTimeout)
	defer cancel()
	c, err := dial(ctx, addr)
	if err != nil {
		return fmt.Errorf("rmnp: connect to peer %d at %s: %w", peerID, addr, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	cfg := e.handshakeConfig()
	info, err := DialHandshake(c, &cfg, peerID, opts)
	if err == nil {
		err = c.SetDeadline(time.Time{})
	}
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.Close()
		return fmt.Errorf("rmnp: handshake with peer %d at %s: %w", peerID, addr, err)
	}
	if err := e.addLink(c, info, true); err != nil {
		c.Close()
		return fmt.Errorf("rmnp: connect to peer %d at %s: %w", peerID, addr, err)
	}
	return nil
}

// dial connects to an rmnp address; a gateway address (GatewayAddr) also
// asks the gateway for its route, after which the connection leads to the
// destination's endpoint.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	if strings.HasPrefix(addr, "gw://") {
		return dialGateway(ctx, addr)
	}
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

// peerFor returns the state of peer id, creating it on first use (a Receive may come
// before the link).
func (e *Endpoint) peerFor(id PeerID) *peer {
	if p := e.lookupPeer(id); p != nil {
		return p
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.peers[id]
	if p == nil {
		p = newPeer(e, id)
		e.peers[id] = p
		snap := make(map[PeerID]*peer, len(e.peers))
		for k, v := range e.peers {
			snap[k] = v
		}
		e.peerSnap.Store(&snap)
	}
	return p
}

// lookupPeer returns the state of peer id, or nil, without locking: the hot path
// reads a copy-on-write snapshot of e.peers.
func (e *Endpoint) lookupPeer(id PeerID) *peer {
	slot := &e.peerCache[id%PeerID(len(e.peerCache))]
	if p := slot.Load(); p != nil && p.id == id {
		return p
	}
	if m := e.peerSnap.Load(); m != nil {
		if p := (*m)[id]; p != nil {
			slot.Store(p)
			return p
		}
	}
	return nil
}

func (e *Endpoint) addLink(c net.Conn, info linkInfo, dialed bool) error {
	if info.mode == Async {
		LimitUnsent(c, AsyncUnsentLimit)
	}
	info.congestion = tuneCongestion(c, e.cfg.CongestionControl)
	p := e.peerFor(info.Peer)
	l := newLink(e, p, c, info, dialed)
	e.mu.Lock()
	if e.isClosed() {
		e.mu.Unlock()
		return ErrClosed
	}
	e.links = append(e.links, l)
	e.mu.Unlock()
	p.addLink(l)
	// Wake WaitPeer only now that the peer has the link: closing linkUp before
	// p.addLink let a waiter see no live link and sleep on the new channel forever.
	e.mu.Lock()
	close(e.linkUp)
	e.linkUp = make(chan struct{})
	e.mu.Unlock()
	e.log.Debug("rmnp: link up", "self", e.cfg.Self, "peer", info.Peer, "network", info.Label,
		"mode", info.mode, "remote", l.remote, "compress", info.compress, "congestion", info.congestion)
	e.wg.Add(2)
	go l.readLoop()
	go l.sendLoop()
	return nil
}

// linkDown is called once per link when it dies.
func (e *Endpoint) linkDown(l *link, err error) {
	left := l.p.removeLink(l)
	ev := PeerDownEvent{Peer: l.p.id, Network: l.info.Label, Addr: l.remote, Err: err, LinksLeft: left}
	if e.isClosed() {
		return
	}
	if errors.Is(err, ErrPeerClosed) {
		e.log.Info("rmnp: link closed by peer", "self", e.cfg.Self, "peer", ev.Peer, "remote", ev.Addr)
	} else {
		e.log.Warn("rmnp: link down", "self", e.cfg.Self, "peer", ev.Peer, "network", ev.Network,
			"remote", ev.Addr, "err", err)
	}
	select {
	case e.down <- ev:
	default:
		e.log.Error("rmnp: PeerDown queue full, event dropped", "peer", ev.Peer, "err", err)
	}
}

// PeerDown returns the channel on which link failures are reported. It is never
// closed; events that find it full are logged and dropped.
func (e *Endpoint) PeerDown() <-chan PeerDownEvent { return e.down }

// Peers returns the ids of the peers with at least one live link, sorted.
func (e *Endpoint) Peers() []PeerID {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ids []PeerID
	for id, p := range e.peers {
		if p.live() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// HeardAt returns when the last CTRL message from id was read off its link
// (buffered or handed to a Receive), whether or not it was received yet:
// a watcher whose receive loop runs behind can tell a silent peer from one
// whose messages wait in its own queue. It is zero if none came.
func (e *Endpoint) HeardAt(id PeerID) time.Time {
	p := e.lookupPeer(id)
	if p == nil {
		return time.Time{}
	}
	at := p.ctrlAt.Load()
	if at == 0 {
		return time.Time{}
	}
	return monoBase.Add(time.Duration(at - 1))
}

// WaitPeer blocks until a link to id is up (dialed by either side), ctx is done or
// the endpoint closes.
func (e *Endpoint) WaitPeer(ctx context.Context, id PeerID) error {
	for {
		e.mu.Lock()
		p, up := e.peers[id], e.linkUp
		e.mu.Unlock()
		if p != nil && p.live() {
			return nil
		}
		select {
		case <-up:
		case <-ctx.Done():
			return fmt.Errorf("rmnp: waiting for peer %d: %w", id, ctx.Err())
		case <-e.closed:
			return ErrClosed
		}
	}
}

// Close stops accepting, writes what is queued on every link (for at most
// Config.CloseTimeout), says GOAWAY, closes every connection and fails the pending
// operations with ErrClosed. It waits for every goroutine of the endpoint to exit.
func (e *Endpoint) Close() error {
	return e.closeWithin(e.cfg.CloseTimeout)
}

// Abort closes the endpoint as Close does without waiting for queued
// messages to be written: for the end of a run that failed or is over, whose
// queued messages no peer needs, and where a peer cut off by the network
// would otherwise hold the close for CloseTimeout.
func (e *Endpoint) Abort() error {
	return e.closeWithin(0)
}

// closedTime is a channel that is always ready: a wait of zero.
var closedTime = func() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}()

// closeWithin closes the endpoint, letting the links write what is queued
// for at most wait.
func (e *Endpoint) closeWithin(wait time.Duration) error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.isShut.Store(true)
		close(e.closed)
		for c := range e.handshaking {
			c.Close()
		}
		e.mu.Unlock()
		for _, ln := range e.listeners {
			ln.Close()
		}
		done := make(chan struct{})
		go func() { e.wg.Wait(); close(done) }()
		var timeout <-chan time.Time
		if wait > 0 {
			timeout = time.After(wait)
		} else {
			timeout = closedTime
		}
		select {
		case <-done:
		case <-timeout:
			e.mu.Lock()
			links := slices.Clone(e.links)
			e.mu.Unlock()
			for _, l := range links {
				l.fail(ErrClosed)
			}
			<-done
		}
	})
	return nil
}

// SetRunID changes the run id the endpoint's handshakes carry and accept
// from now on; the links up stay. An engine that gives each attempt of a
// run an id of its own (a fence: a peer still in the attempt before is
// refused, ErrOtherRun) moves a listening endpoint into the next attempt
// with it, without closing its listeners.
func (e *Endpoint) SetRunID(id [16]byte) {
	e.runMu.Lock()
	e.cfg.RunID = id
	e.runMu.Unlock()
}

// handshakeConfig is a copy of the endpoint's configuration with its
// current run id.
func (e *Endpoint) handshakeConfig() Config {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.cfg
}

// DeriveKey returns a run id and a secret for another set of endpoints of
// the same run (apps/exec's in-process programs: their links must not
// accept this endpoint's peers, nor their secret open this endpoint's),
// derived from this endpoint's by HMAC-SHA256 with label. Every endpoint
// of the run derives the same pair for the same label.
func (e *Endpoint) DeriveKey(label string) (run [16]byte, secret []byte) {
	cfg := e.handshakeConfig()
	h := hmac.New(sha256.New, cfg.Secret)
	h.Write([]byte("rmnp derived secret\x00" + label + "\x00"))
	h.Write(cfg.RunID[:])
	secret = h.Sum(nil)
	h = hmac.New(sha256.New, cfg.Secret)
	h.Write([]byte("rmnp derived run\x00" + label + "\x00"))
	h.Write(cfg.RunID[:])
	copy(run[:], h.Sum(nil))
	return run, secret
}
