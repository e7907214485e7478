package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/engine/gateway"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
	rmnpgw "github.com/gridtui/gridtui/rmnp/gateway"
)

// runGateway is one site's gateway as the submitter starts and follows it.
type runGateway struct {
	Name string // "gw-<site>"
	Site string
	Host inventory.Host
	Def  inventory.Gateway
	ID   rmnp.PeerID
	Port int // the port it listens on (the first of Def.Ports it could bind)
	W    *deploy.Worker
	// peerAddr is where it dials each peer of higher id (by name): the
	// peer's WAN address, or the local end of an SSH tunnel to it.
	peerAddr map[string]string
	// tunneled names the peers linked through an SSH tunnel, and why
	// (no address, its port closed); tunnels are
	// the tunnels from this gateway's host, pool the console's SSH
	// connections they use (shared by all the run's gateways).
	tunneled map[string]string
	tunnels  []*sshclient.Tunnel
	pool     *sshclient.Pool
	// pairs are, once it is lost, the SSH tunnels between its site's
	// workers and the other sites' that replace it (gateway_lost.go).
	pairs []*sshclient.Tunnel
	// heard is when the console last read its counters (its heartbeat);
	// stopped is set once it was stopped; lostDone is closed when the stop
	// of a gateway lost during the run ends (carryGateways).
	heard    time.Time
	stopped  bool
	lostDone chan struct{}
	// allowed are the destinations it was given (its plan's, then its
	// updates'): allowWorkers sends only new ones.
	allowed map[string]bool
}

// local is the address the site's workers dial: the gateway host's name
// (a local node's Ethernet address) and port.
func (g *runGateway) local() string {
	host := g.Host.Name
	if g.Host.EthernetAddr.IsValid() {
		host = g.Host.EthernetAddr.String()
	}
	return "tcp://" + net.JoinHostPort(host, strconv.Itoa(g.Port))
}

// gatewayFirst puts the route through the gateways before the direct ones
// (tests: on loopback the direct path never fails).
var gatewayFirst bool

// wan is the address the other sites' gateways dial.
func (g *runGateway) wan() string {
	return "tcp://" + net.JoinHostPort(g.Def.Address, strconv.Itoa(g.Port))
}

// gatewayS2Env, set to "off" in the console's environment, turns S2 off
// on the gateway links (to measure what it saves).
const gatewayS2Env = "GRIDTUI_GATEWAY_S2"

// gatewayName names the gateway of a site.
func gatewayName(site string) string { return "gw-" + site }

// gatewaySites returns, for a run over workers, the sites that take part
// and name a gateway; a run on fewer than two such sites needs none.
func gatewaySites(inv *inventory.Inventory, ranks []string) []*inventory.Site {
	var out []*inventory.Site
	for _, name := range ranks {
		s := inv.SiteOf(name)
		if s != nil && len(s.Gateways) > 0 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// startGateways starts the gateways of the sites of the run that name one
// (PACX-MPI: a gateway per site carries its links to the other sites), then
// gives each its peers and the data addresses of its own site's workers,
// the only destinations it will dial. The caller stops them.
func startGateways(ctx context.Context, inv *inventory.Inventory, ranks []string, workers []*deploy.Worker, opt RunOptions) (map[string]*runGateway, error) {
	sites := gatewaySites(inv, ranks)
	if len(sites) == 0 {
		return nil, nil
	}
	byHost := map[string]inventory.Host{}
	for _, h := range inv.Hosts() {
		byHost[h.Name] = h
	}
	gws := map[string]*runGateway{}
	var hosts []inventory.Host
	for _, s := range sites {
		def := s.Gateways[0]
		g := &runGateway{Name: gatewayName(s.Name), Site: s.Name, Host: byHost[def.Host], Def: def, ID: worker.NodeID(gatewayName(s.Name)),
			peerAddr: map[string]string{}, tunneled: map[string]string{}}
		gws[def.Host] = g
		hosts = append(hosts, g.Host)
	}
	boot := func(h inventory.Host) deploy.Boot {
		g := gws[h.Name]
		b := deploy.Boot{Node: g.Name, RunID: opt.RunID, Secret: opt.Secret, Role: deploy.RoleGateway, Cluster: h.Cluster}
		for _, p := range g.Def.Ports {
			b.Listen = append(b.Listen, "tcp://"+net.JoinHostPort("0.0.0.0", strconv.Itoa(p)))
		}
		return b
	}
	ws, err := deploy.StartWorkers(ctx, inv, hosts, boot, opt.Deploy)
	if err != nil {
		return nil, fmt.Errorf("engine: start gateways: %w", err)
	}
	out := map[string]*runGateway{}
	for _, w := range ws {
		g := gws[w.Host.Name]
		g.W = w
		out[g.Site] = g
		if len(w.Hello.Listen) > 0 {
			if ap, err := netip.ParseAddrPort(strings.TrimPrefix(w.Hello.Listen[0], "tcp://")); err == nil {
				g.Port = int(ap.Port())
			}
		}
	}
	if err := linkGateways(ctx, inv, out, opt); err != nil {
		stopGateways(out, nil)
		return nil, err
	}
	for _, g := range out {
		plan := gatewayPlanFor(g, out, inv, workers)
		g.allowed = map[string]bool{}
		for _, a := range plan.Allow {
			g.allowed[a] = true
		}
		if err := g.W.WriteLine(plan); err != nil {
			stopGateways(out, nil)
			return nil, fmt.Errorf("engine: gateway %s on %s: %w", g.Name, g.Host.Name, err)
		}
	}
	if err := waitGatewayLinks(ctx, out); err != nil {
		stopGateways(out, nil)
		return nil, err
	}
	return out, nil
}

// gatewayLinkTimeout bounds the wait for the gateways to link up.
const gatewayLinkTimeout = 15 * time.Second

// waitGatewayLinks waits until every gateway reports a live link to every
// other (its counters line lists them up): a worker's route request must
// find the link there. A gateway that exits, or a pair that does not link
// up in time (a port closed between the sites), is an error naming them.
func waitGatewayLinks(ctx context.Context, gws map[string]*runGateway) error {
	deadline := time.Now().Add(gatewayLinkTimeout)
	for {
		var missing []string
		for _, g := range gws {
			if g.W.Err() != nil {
				return fmt.Errorf("engine: gateway %s on %s: %w", g.Name, g.Host.Name, g.W.Err())
			}
			var st rmnpgw.GatewayStats
			_ = json.Unmarshal([]byte(g.W.LastLine()), &st)
			for _, o := range gws {
				if o != g && !linkUp(st, o.Name) {
					missing = append(missing, fmt.Sprintf("%s (%s) ↔ %s (%s)", g.Name, g.Host.Name, o.Name, o.wan()))
				}
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			slices.Sort(missing)
			return fmt.Errorf("engine: gateways not linked after %v: %s: is the gateway port open between the sites? (sites.toml [[site.gateway]] address and ports)",
				gatewayLinkTimeout, strings.Join(missing, ", "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("engine: waiting for the gateways: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func linkUp(st rmnpgw.GatewayStats, peer string) bool {
	for _, l := range st.Links {
		if l.Peer == peer && l.Up {
			return true
		}
	}
	return false
}

// gatewayPlanFor is g's plan: every other gateway of the run, and the data
// addresses of the workers of g's site.
func gatewayPlanFor(g *runGateway, all map[string]*runGateway, inv *inventory.Inventory, workers []*deploy.Worker) gateway.GatewayPlan {
	p := gateway.GatewayPlan{Self: g.ID, NoCompress: os.Getenv(gatewayS2Env) == "off"}
	for _, o := range all {
		if o != g {
			p.Peers = append(p.Peers, rmnpgw.GatewayPeer{ID: o.ID, Name: o.Name, Addr: g.peerAddr[o.Name]})
		}
	}
	p.Allow = siteDataAddrs(g.Site, inv, workers)
	return p
}

// siteDataAddrs returns the TCP data addresses of the workers of site
// (a second worker "<host>#2" by its host's site).
func siteDataAddrs(site string, inv *inventory.Inventory, workers []*deploy.Worker) []string {
	var out []string
	for _, w := range workers {
		if s := inv.SiteOf(hostName(w.Host.Name)); s != nil && s.Name == site {
			_, data := worker.SplitListen(w.Hello.Listen)
			for _, a := range data {
				if strings.HasPrefix(a, "tcp://") {
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// allowWorkers tells each running gateway the data addresses of its site's
// workers it was not given yet (a recovery's new workers listen on new
// ports: without this the gateway refuses to dial them, and the pairs
// across sites that reach them fail pre-flight).
func allowWorkers(gws map[string]*runGateway, inv *inventory.Inventory, workers []*deploy.Worker) error {
	for _, g := range gws {
		if g.stopped || g.W == nil {
			continue
		}
		var more []string
		for _, a := range siteDataAddrs(g.Site, inv, workers) {
			if !g.allowed[a] {
				more = append(more, a)
			}
		}
		if len(more) == 0 {
			continue
		}
		if err := g.W.WriteLine(gateway.GatewayUpdate{Allow: more}); err != nil {
			return fmt.Errorf("engine: gateway %s on %s: %w", g.Name, g.Host.Name, err)
		}
		if g.allowed == nil {
			g.allowed = map[string]bool{}
		}
		for _, a := range more {
			g.allowed[a] = true
		}
	}
	return nil
}

// linkGateways decides how each pair of gateways links: the one of lower
// id dials the other at its address, or through an SSH tunnel (a remote
// forward on the dialer's host carried by the console's SSH connections to
// a direct-tcpip channel on the other's host: slower, no setup) when that
// site names no address (no port open to other sites) or when its port
// turns out closed or unreachable from the dialer's host (pre-flight of the
// gateway link, checkGatewayPort).
func linkGateways(ctx context.Context, inv *inventory.Inventory, gws map[string]*runGateway, opt RunOptions) error {
	var pool *sshclient.Pool
	getPool := func() (*sshclient.Pool, error) {
		if pool == nil {
			var err error
			if pool, err = sshclient.NewPool(inv, opt.Deploy.SSH()); err != nil {
				return nil, err
			}
			for _, g := range gws {
				g.pool = pool
			}
		}
		return pool, nil
	}
	for _, a := range gws {
		for _, b := range gws {
			if a.ID >= b.ID {
				continue
			}
			why := "no gateway address in sites.toml"
			if b.Def.Address != "" {
				if why = checkGatewayPort(ctx, inv, getPool, a, b); why == "" {
					a.peerAddr[b.Name] = b.wan()
					continue
				}
			}
			p, err := getPool()
			if err != nil {
				return fmt.Errorf("engine: SSH tunnel between gateways: %w", err)
			}
			t, err := p.OpenTunnel(ctx, a.Host, b.Host, net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port)))
			if err != nil {
				return fmt.Errorf("engine: SSH tunnel %s (%s) → %s (%s) (%s): %w", a.Name, a.Host.Name, b.Name, b.Host.Name, why, err)
			}
			a.tunnels = append(a.tunnels, t)
			a.peerAddr[b.Name] = "tcp://" + t.Listen
			a.tunneled[b.Name], b.tunneled[a.Name] = why, why
		}
	}
	return nil
}

// gatewayPortTimeout bounds the pre-flight of a gateway link.
const gatewayPortTimeout = 3 * time.Second

// checkGatewayPort is the pre-flight of the link from gateway a to gateway
// b's address: a connection from a's host to b's port, over the console's
// SSH connection to a's host. It returns "" when the port answers (or
// cannot be checked: local hosts, which no SSH tunnel could serve either;
// an sshd that forwards nothing), else why the link needs the SSH tunnel.
func checkGatewayPort(ctx context.Context, inv *inventory.Inventory, pool func() (*sshclient.Pool, error), a, b *runGateway) string {
	for _, g := range []*runGateway{a, b} {
		if s := inv.SiteOf(g.Host.Name); s == nil || s.Launcher == inventory.LauncherLocal {
			return ""
		}
	}
	p, err := pool()
	if err != nil {
		return ""
	}
	addr := net.JoinHostPort(b.Def.Address, strconv.Itoa(b.Port))
	cctx, cancel := context.WithTimeout(ctx, gatewayPortTimeout)
	defer cancel()
	err = p.DialFrom(cctx, a.Host, addr)
	if err == nil || errors.Is(err, sshclient.ErrForwardingRefused) || ctx.Err() != nil {
		return ""
	}
	return fmt.Sprintf("gateway port %d on %s closed or unreachable from %s (%v)", b.Port, b.Def.Address, a.Host.Name,
		strings.TrimPrefix(err.Error(), "deploy: "))
}

// stopGateways stops the run's gateways, then their SSH tunnels; those on
// a host in lost (stopped, cut off) are killed without waiting on them.
// A gateway stopped once is not stopped again, but the stop of one lost
// during the run is waited for (bounded: waitLost).
func stopGateways(gws map[string]*runGateway, lost map[string]bool) {
	var wg sync.WaitGroup
	for _, g := range gws {
		switch {
		case g.W != nil && !g.stopped:
			g.stopped = true
			wg.Go(func() { stopGateway(g.W, lost[g.Host.Name]) })
		case g.lostDone != nil:
			wg.Go(g.waitLost)
		}
	}
	wg.Wait()
	var pool *sshclient.Pool
	for _, g := range gws {
		for _, t := range slices.Concat(g.tunnels, g.pairs) {
			t.Close()
		}
		g.tunnels, g.pairs = nil, nil
		if g.pool != nil {
			pool, g.pool = g.pool, nil
		}
	}
	if pool != nil {
		pool.Close()
	}
}

// gatewayRoute is the route of pair a ↔ b through the gateways of their
// sites, appended after the direct candidates: pre-flight takes it when
// the direct path fails. addr is the destination's direct data address.
// Its reason reads "a ↔ b: via <Via>: <why>", the why of an SSH tunnel
// (no gateway address, its port closed) first.
func gatewayRoute(direct probe.Route, ga, gb *runGateway, addr string) (probe.Route, string) {
	r := direct
	r.Via = "gateway " + ga.Name + " ↔ " + gb.Name
	r.Reason = fmt.Sprintf("%s ↔ %s: via %s: direct %s unreachable (pre-flight) between sites %s and %s, whose gateways sites.toml names (%s ↔ %s)",
		direct.A, direct.B, r.Via, direct.Network, ga.Site, gb.Site, ga.Host.Name, gb.wan())
	if why, ok := ga.tunneled[gb.Name]; ok {
		r.Via = "SSH tunnel " + ga.Name + " ↔ " + gb.Name
		r.Reason = fmt.Sprintf("%s ↔ %s: via %s: %s; direct %s unreachable (pre-flight) between sites %s and %s (%s ↔ %s over the console's SSH connections)",
			direct.A, direct.B, r.Via, why, direct.Network, ga.Site, gb.Site, ga.Host.Name, gb.Host.Name)
	}
	return r, rmnp.GatewayAddr(ga.local(), gb.Name, addr)
}

// addGatewayRoute appends to up's routes the route through the gateways of
// lo's and hi's sites, when they are different sites that both have one:
// the last candidate, which pre-flight takes only when the direct ones fail.
// When one of the two lost its gateway, it returns the pair, whose SSH
// tunnel route tunnelRoutes adds if its direct route fails (nil if none).
func (s *submission) addGatewayRoute(up *worker.NeighbourTask, lo, hi string) *tunnelPair {
	if len(s.gateways)+len(s.gwLost) == 0 || s.inv == nil {
		return nil
	}
	sa, sb := s.inv.SiteOf(lo), s.inv.SiteOf(hi)
	if sa == nil || sb == nil || sa == sb {
		return nil
	}
	ga, gb := s.gateways[sa.Name], s.gateways[sb.Name]
	if ga == nil || gb == nil {
		return s.addTunnelRoute(up, lo, hi, sa, sb)
	}
	for i := len(up.Routes) - 1; i >= 0; i-- {
		if strings.HasPrefix(up.Addrs[i], "tcp://") && up.Routes[i].Via == "" {
			r, a := gatewayRoute(up.Routes[i], ga, gb, up.Addrs[i])
			up.Routes, up.Addrs = append(up.Routes, r), append(up.Addrs, a)
			if gatewayFirst {
				up.Routes, up.Addrs = []probe.Route{r}, []string{a}
			}
			return nil
		}
	}
	return nil
}

// watchGateways reports every gateway of the run whose process ends.
func (s *submission) watchGateways(ctx context.Context) <-chan *runGateway {
	exited := make(chan *runGateway, len(s.gateways))
	for _, g := range s.gateways {
		go func() {
			select {
			case <-g.W.Done():
				exited <- g
			case <-ctx.Done():
			}
		}()
	}
	return exited
}

// exitCause says that g's process ended, and how.
func (g *runGateway) exitCause() string {
	cause := fmt.Sprintf("gateway of site %s on %s exited", g.Site, g.Host.Name)
	if err := g.W.Err(); err != nil {
		cause += ": " + err.Error()
	}
	return cause
}

// dialledRoutes returns the plan's routes with each replaced by the one
// pre-flight chose, as the dialling node reported it (direct, or through
// the gateways).
func (s *submission) dialledRoutes() []probe.Route {
	out := slices.Clone(s.plan.Routes)
	for _, h := range s.headers {
		if h == nil {
			continue
		}
		for _, d := range h.Dialled {
			for i := range out {
				if out[i].A == d.A && out[i].B == d.B {
					out[i] = d
				}
			}
		}
	}
	return out
}

// gatewayReports reads the gateways' last counters.
func gatewayReports(gws map[string]*runGateway) []GatewayReport {
	var out []GatewayReport
	for _, g := range gws {
		var st rmnpgw.GatewayStats
		if g.W == nil || json.Unmarshal([]byte(g.W.LastLine()), &st) != nil {
			continue
		}
		for _, l := range st.Links {
			out = append(out, GatewayReport{Name: g.Name, Site: g.Site, Host: g.Host.Name, GatewayLinkStats: l})
		}
	}
	slices.SortFunc(out, func(a, b GatewayReport) int { return strings.Compare(a.Name+a.Peer, b.Name+b.Peer) })
	return out
}

// GatewayFallback says how nodes a and b would link if their direct path
// failed pre-flight: "via gateway gw-x ↔ gw-y" or "via SSH tunnel gw-x ↔
// gw-y" when they are in two sites that name gateways (the dialing gateway,
// of lower id, goes through an SSH tunnel when the other names no
// address), "" otherwise.
func GatewayFallback(inv *inventory.Inventory, a, b string) string {
	sa, sb := inv.SiteOf(a), inv.SiteOf(b)
	if sa == nil || sb == nil || sa == sb || len(sa.Gateways) == 0 || len(sb.Gateways) == 0 {
		return ""
	}
	na, nb := gatewayName(sa.Name), gatewayName(sb.Name)
	acceptor := sb
	if worker.NodeID(nb) < worker.NodeID(na) {
		acceptor = sa
	}
	if acceptor.Gateways[0].Address == "" {
		return "via SSH tunnel " + na + " ↔ " + nb
	}
	return "via gateway " + na + " ↔ " + nb
}
