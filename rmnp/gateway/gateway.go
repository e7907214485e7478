package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/rmnp"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"
)

// A Gateway carries the links between the workers of two sites whose node
// networks are not routed to each other, as PACX-MPI's pair of gateway
// processes per machine does: a worker dials its site's gateway and names the
// peer site's gateway and the destination behind it (spec.md §8.1); the
// gateway relays the worker's RMNP handshake and frames over one
// authenticated gateway link per pair of sites, on which every such worker
// link is a channel (§8.3). On that link DATA is compressed with S2, CTRL is
// never queued behind another channel's DATA, and an asynchronous channel
// holds at most one queued DATA: a newer update replaces it, so a slow WAN
// never stores seconds of stale halos. The workers' own handshake runs end to
// end through both gateways, which check nothing of it but its framing.
type Gateway struct {
	cfg    GatewayConfig
	log    *slog.Logger
	lns    []net.Listener
	addrs  []string
	closed chan struct{}
	wg     sync.WaitGroup

	mu    sync.Mutex
	muxes map[rmnp.PeerID]*gwMux
	last  map[rmnp.PeerID]*gwMux // the latest link to each peer, up or down (Stats)
	muxUp chan struct{}          // closed and replaced when a gateway link comes up
	shut  bool
}

// GatewayConfig configures a Gateway.
type GatewayConfig struct {
	// RunID and Secret authenticate the gateway links as Config's do.
	RunID  [16]byte
	Secret []byte
	// Self is this gateway's peer id on gateway links; Name is how workers
	// and errors name it.
	Self rmnp.PeerID
	Name string
	// Listen lists the TCP addresses to listen on: the site side, where
	// workers dial, and the WAN side, where peer gateways dial (one port may
	// serve both: the first bytes of a connection tell them apart).
	Listen []string
	// Peers are the gateways of the other sites; of each pair, the gateway
	// with the lower id dials.
	Peers []GatewayPeer
	// Allow lists the rmnp addresses ("tcp://host:port") this gateway may
	// dial for a peer gateway: the data addresses of its site's workers in
	// the run. Any other destination is refused.
	Allow []string
	// Compress compresses DATA with S2 on gateway links.
	Compress bool
	// HeartbeatInterval makes a gateway link send a PING when idle that long
	// and declares it dead after three intervals without a frame. Zero means
	// one second.
	HeartbeatInterval time.Duration
	// DialTimeout bounds a dial plus its handshake. Zero means 10 s.
	DialTimeout time.Duration
	// MaxFrame bounds a relayed message. Zero means 64 MiB.
	MaxFrame int
	// Logger receives link events; nil discards them.
	Logger *slog.Logger
}

// GatewayPeer is the gateway of another site.
type GatewayPeer struct {
	ID   rmnp.PeerID
	Name string
	// Addr is where this gateway dials it: "tcp://host:port"; empty for a
	// peer of lower id, which dials this gateway.
	Addr string
}

func (cfg *GatewayConfig) validate() error {
	if len(cfg.Secret) < 16 {
		return fmt.Errorf("%w: gateway %s: secret shorter than 16 bytes", rmnp.ErrConfig, cfg.Name)
	}
	if cfg.Name == "" || len(cfg.Listen) == 0 {
		return fmt.Errorf("%w: gateway needs a name and an address to listen on", rmnp.ErrConfig)
	}
	for _, p := range cfg.Peers {
		if p.ID == cfg.Self || p.Name == "" {
			return fmt.Errorf("%w: gateway %s: peer gateway %q (id %d)", rmnp.ErrConfig, cfg.Name, p.Name, p.ID)
		}
		if p.Addr == "" && p.ID > cfg.Self {
			return fmt.Errorf("%w: gateway %s: no address to dial peer %s", rmnp.ErrConfig, cfg.Name, p.Name)
		}
		if _, _, err := rmnp.ParseAddr(p.Addr); err != nil && p.Addr != "" {
			return fmt.Errorf("gateway %s: peer %s: %w", cfg.Name, p.Name, err)
		}
	}
	for _, a := range cfg.Listen {
		if _, _, err := rmnp.ParseAddr(a); err != nil {
			return err
		}
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = time.Second
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = rmnp.DefaultDialTimeout
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = rmnp.DefaultMaxFrame
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

// StartGateway listens on cfg.Listen and starts dialing the peer gateways
// of higher id. It returns once listening; the gateway runs until Close.
func StartGateway(ctx context.Context, cfg GatewayConfig) (*Gateway, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &Gateway{cfg: cfg, log: cfg.Logger, closed: make(chan struct{}),
		muxes: map[rmnp.PeerID]*gwMux{}, last: map[rmnp.PeerID]*gwMux{}, muxUp: make(chan struct{})}
	var lc net.ListenConfig
	for _, a := range cfg.Listen {
		network, address, _ := rmnp.ParseAddr(a)
		ln, err := lc.Listen(ctx, network, address)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("rmnp: gateway %s: listen on %s: %w", cfg.Name, a, err)
		}
		g.lns, g.addrs = append(g.lns, ln), append(g.addrs, rmnp.FormatAddr(ln.Addr()))
	}
	for _, ln := range g.lns {
		g.wg.Add(1)
		go g.acceptLoop(ln)
	}
	g.mu.Lock()
	g.dialPeers(cfg.Peers)
	g.mu.Unlock()
	return g, nil
}

// dialPeers starts keeping a link to each peer of higher id; g.mu is held.
func (g *Gateway) dialPeers(peers []GatewayPeer) {
	for _, p := range peers {
		if g.cfg.Self < p.ID && !g.shut {
			g.wg.Add(1)
			go g.dialLoop(p)
		}
	}
}

// Configure sets the peer gateways and the allowed destinations of a
// gateway started without them (its peers' ports are known only once they
// listen), whether DATA is compressed on its links, and starts dialing the
// peers of higher id.
func (g *Gateway) Configure(peers []GatewayPeer, allow []string, compress bool) error {
	c := g.cfg
	c.Peers, c.Allow = peers, allow
	if err := c.validate(); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.cfg.Peers) > 0 {
		return fmt.Errorf("%w: gateway %s is configured already", rmnp.ErrConfig, g.cfg.Name)
	}
	g.cfg.Peers, g.cfg.Allow, g.cfg.Compress = slices.Clone(peers), slices.Clone(allow), compress
	g.dialPeers(peers)
	return nil
}

// Addrs returns the bound addresses, in the order of Listen.
func (g *Gateway) Addrs() []string { return slices.Clone(g.addrs) }

// Close stops listening, closes every gateway link and relayed connection,
// and waits for the gateway's goroutines.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.shut {
		g.mu.Unlock()
		return nil
	}
	g.shut = true
	close(g.closed)
	muxes := make([]*gwMux, 0, len(g.muxes))
	for _, m := range g.muxes {
		muxes = append(muxes, m)
	}
	g.mu.Unlock()
	for _, ln := range g.lns {
		ln.Close()
	}
	for _, m := range muxes {
		m.fail(rmnp.ErrClosed)
	}
	g.wg.Wait()
	return nil
}

func (g *Gateway) acceptLoop(ln net.Listener) {
	defer g.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.serve(c)
		}()
	}
}

// serve tells a worker's route request ("RMGW") from a peer gateway's
// handshake ("RMNP") by the first four bytes.
func (g *Gateway) serve(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(g.cfg.DialTimeout))
	var m [4]byte
	if _, err := io.ReadFull(c, m[:]); err != nil {
		c.Close()
		return
	}
	switch m {
	case rmnp.RouteMagic:
		req, err := rmnp.ReadRouteRequest(io.MultiReader(bytes.NewReader(m[:]), c))
		if err != nil {
			g.log.Warn("rmnp: gateway: bad route request", "gateway", g.cfg.Name, "remote", rmnp.RemoteName(c), "err", err)
			_, _ = c.Write(rmnp.RouteReply(rmnp.RouteBadRequest))
			c.Close()
			return
		}
		g.route(c, req)
	case rmnp.Magic:
		rw := struct {
			io.Reader
			io.Writer
		}{io.MultiReader(bytes.NewReader(m[:]), c), c}
		cfg := g.rmnpConfig()
		info, err := rmnp.AcceptHandshake(rw, &cfg, g.isClosed())
		if err == nil && (info.Label != gatewayLabel || g.peer(info.Peer) == nil) {
			err = fmt.Errorf("%w: peer %d (%q) is not a gateway of this run", rmnp.ErrAuth, info.Peer, info.Label)
		}
		if err != nil {
			g.log.Warn("rmnp: gateway: handshake refused", "gateway", g.cfg.Name, "remote", rmnp.RemoteName(c), "err", err)
			c.Close()
			return
		}
		_ = c.SetDeadline(time.Time{})
		g.runMux(c, *g.peer(info.Peer), false)
	default:
		g.log.Warn("rmnp: gateway: unknown protocol", "gateway", g.cfg.Name, "remote", rmnp.RemoteName(c))
		c.Close()
	}
}

// gatewayLabel is the network label of gateway links' handshakes.
const gatewayLabel = "gateway"

func (g *Gateway) rmnpConfig() rmnp.Config {
	return rmnp.Config{RunID: g.cfg.RunID, Secret: g.cfg.Secret, Self: g.cfg.Self}
}

func (g *Gateway) isClosed() bool {
	select {
	case <-g.closed:
		return true
	default:
		return false
	}
}

func (g *Gateway) peer(id rmnp.PeerID) *GatewayPeer {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range g.cfg.Peers {
		if g.cfg.Peers[i].ID == id {
			return &g.cfg.Peers[i]
		}
	}
	return nil
}

// AllowMore adds destinations this gateway may dial for its peers: the
// data addresses of workers of its site started after it was configured
// (a recovery's new worker, on a new port). Addresses it allows already
// are skipped.
func (g *Gateway) AllowMore(addrs []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range addrs {
		if !slices.Contains(g.cfg.Allow, a) {
			g.cfg.Allow = append(g.cfg.Allow, a)
		}
	}
}

func (g *Gateway) allowed(to string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Contains(g.cfg.Allow, to)
}

func (g *Gateway) peerNamed(name string) *GatewayPeer {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range g.cfg.Peers {
		if g.cfg.Peers[i].Name == name {
			return &g.cfg.Peers[i]
		}
	}
	return nil
}

// dialLoop keeps a gateway link to p up: it dials until the link is up,
// waits for it to fail, and dials again, until the gateway closes.
func (g *Gateway) dialLoop(p GatewayPeer) {
	defer g.wg.Done()
	network, address, _ := rmnp.ParseAddr(p.Addr)
	for !g.isClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), g.cfg.DialTimeout)
		var d net.Dialer
		c, err := d.DialContext(ctx, network, address)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(g.cfg.DialTimeout))
			cfg := g.rmnpConfig()
			_, err = rmnp.DialHandshake(c, &cfg, p.ID, rmnp.LinkOptions{Mode: rmnp.Sync, Network: gatewayLabel})
			if err != nil {
				c.Close()
			}
		}
		cancel()
		if err != nil {
			g.log.Warn("rmnp: gateway: dial peer gateway", "gateway", g.cfg.Name, "peer", p.Name, "addr", p.Addr, "err", err)
			select {
			case <-g.closed:
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		_ = c.SetDeadline(time.Time{})
		g.runMux(c, p, true)
	}
}

// runMux serves a gateway link until it fails.
func (g *Gateway) runMux(c net.Conn, p GatewayPeer, dialed bool) {
	rmnp.LimitUnsent(c, rmnp.AsyncUnsentLimit) // a slow WAN must hold back the writer, so async DATA is replaced here
	m := newMux(g, c, p, dialed)
	g.mu.Lock()
	if g.shut {
		g.mu.Unlock()
		c.Close()
		return
	}
	old := g.muxes[p.ID]
	g.muxes[p.ID], g.last[p.ID] = m, m
	close(g.muxUp)
	g.muxUp = make(chan struct{})
	g.mu.Unlock()
	if old != nil {
		old.fail(errors.New("replaced by a newer gateway link"))
	}
	g.log.Info("rmnp: gateway link up", "gateway", g.cfg.Name, "peer", p.Name, "remote", rmnp.RemoteName(c))
	err := m.run()
	g.mu.Lock()
	if g.muxes[p.ID] == m {
		delete(g.muxes, p.ID)
	}
	g.mu.Unlock()
	g.log.Warn("rmnp: gateway link down", "gateway", g.cfg.Name, "peer", p.Name, "err", err)
}

// waitMux returns the live gateway link to peer id, waiting for it until
// ctx ends.
func (g *Gateway) waitMux(ctx context.Context, id rmnp.PeerID) *gwMux {
	for {
		g.mu.Lock()
		m, up := g.muxes[id], g.muxUp
		g.mu.Unlock()
		if m != nil && !m.isDown() {
			return m
		}
		select {
		case <-up:
		case <-ctx.Done():
			return nil
		case <-g.closed:
			return nil
		}
	}
}

// route serves a worker's route request: it opens a channel to the peer
// gateway, which dials the destination, and answers the worker.
func (g *Gateway) route(c net.Conn, req rmnp.RouteRequest) {
	fail := func(st uint8, why string) {
		g.log.Warn("rmnp: gateway: route refused", "gateway", g.cfg.Name, "via", req.Via, "to", req.To, "why", why)
		_, _ = c.Write(rmnp.RouteReply(st))
		c.Close()
	}
	p := g.peerNamed(req.Via)
	if p == nil {
		fail(rmnp.RouteNoPeer, "no such peer gateway")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.DialTimeout)
	defer cancel()
	m := g.waitMux(ctx, p.ID)
	if m == nil {
		fail(rmnp.RouteNoPeer, "gateway link down")
		return
	}
	ch := m.newChan(c, true)
	m.enqueue(ch, &relayItem{op: opOpen, body: []byte(req.To)})
	var st uint8
	select {
	case st = <-ch.opened:
	case <-ctx.Done():
		st = rmnp.RouteUnreachable
	case <-m.closed:
		st = rmnp.RouteNoPeer
	}
	if st != rmnp.RouteOK {
		m.forget(ch)
		fail(st, "the peer gateway answered "+rmnp.RouteStatusText(st))
		return
	}
	_ = c.SetDeadline(time.Time{})
	if _, err := c.Write(rmnp.RouteReply(rmnp.RouteOK)); err != nil {
		m.closeChan(ch, true)
		return
	}
	ch.start()
}

// openFromPeer serves a peer gateway's OPEN: dial the destination if it is
// one of this run's workers, and answer.
func (g *Gateway) openFromPeer(m *gwMux, id uint32, to string) {
	ch := m.adoptChan(id)
	if ch == nil {
		return
	}
	answer := func(st uint8) {
		m.enqueue(ch, &relayItem{op: opOpened, body: []byte{st}})
	}
	if !g.allowed(to) {
		g.log.Warn("rmnp: gateway: destination refused", "gateway", g.cfg.Name, "peer", m.peer.Name, "to", to)
		answer(rmnp.RouteRefused)
		m.closeChan(ch, false)
		return
	}
	network, address, _ := rmnp.ParseAddr(to)
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.DialTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		g.log.Warn("rmnp: gateway: dial destination", "gateway", g.cfg.Name, "to", to, "err", err)
		answer(rmnp.RouteUnreachable)
		m.closeChan(ch, false)
		return
	}
	if !ch.attach(c) {
		return
	}
	answer(rmnp.RouteOK)
	ch.start()
}
