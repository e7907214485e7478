package engine

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/engine/worker"
)

// A lost gateway (docs/FAILURES.md). A gateway whose process ended, or
// that fell silent, is a loss like a node's: the attempt ends and the run
// recovers on the same workers (none of them is lost with it). The next
// attempt runs without that gateway: the pairs that went through it keep
// their direct routes, and when both ends are on SSH hosts, a last route
// through an SSH tunnel between the two workers' hosts, carried by the
// console's SSH connections (sshclient.Pool.OpenTunnel, as between two
// gateways whose port is closed). Pre-flight takes the first that answers.

// pairTunnelTimeout bounds the opening of a pair's SSH tunnel.
const pairTunnelTimeout = 15 * time.Second

// failedGateway returns the gateway the attempt failed on, nil when the
// failure is not a gateway's.
func (s *submission) failedGateway() *runGateway {
	if s.failed == nil || s.aborted != nil {
		return nil
	}
	return s.gatewayNamed(s.failed.Node)
}

// carryGateways gives next the gateways of s: all of them, or, when s
// failed on a gateway, all but that one, which is stopped at once (its
// host may be gone) and kept in next.gwLost for the SSH tunnels its site's
// pairs fall back to.
func carryGateways(next, s *submission) {
	next.gateways, next.gwLost = s.gateways, s.gwLost
	g := s.failedGateway()
	if g == nil {
		return
	}
	if !g.stopped {
		g.stopped = true
		go stopLost(g.W)
	}
	next.gateways = maps.Clone(s.gateways)
	delete(next.gateways, g.Site)
	next.gwLost = maps.Clone(s.gwLost)
	if next.gwLost == nil {
		next.gwLost = map[string]*runGateway{}
	}
	next.gwLost[g.Site] = g
}

// addTunnelRoute appends to up's routes, when lo's or hi's site lost its
// gateway and both are SSH hosts, a route through an SSH tunnel from lo's
// host to hi's data address (the pair's direct address, as hi's host sees
// it): the last candidate, as the gateway route was.
func (s *submission) addTunnelRoute(up *worker.NeighbourTask, lo, hi string, sa, sb *inventory.Site) {
	g := s.gwLost[sa.Name]
	if g == nil {
		g = s.gwLost[sb.Name]
	}
	wl, wh := s.workers[lo], s.workers[hi]
	if g == nil || wl == nil || wh == nil || sa.Launcher == inventory.LauncherLocal || sb.Launcher == inventory.LauncherLocal {
		return
	}
	for i := len(up.Routes) - 1; i >= 0; i-- {
		if !strings.HasPrefix(up.Addrs[i], "tcp://") || up.Routes[i].Via != "" {
			continue
		}
		t, err := s.pairTunnel(g, realHost(wl.Host), realHost(wh.Host), strings.TrimPrefix(up.Addrs[i], "tcp://")) // a second worker's tunnel starts on its host
		if err != nil {
			s.logf(hi, "warning: %s ↔ %s: no SSH tunnel in place of gateway %s: %v", lo, hi, g.Name, err)
			return
		}
		r := up.Routes[i]
		r.Via = "SSH tunnel " + lo + " ↔ " + hi
		r.Reason = fmt.Sprintf("%s ↔ %s: via %s: gateway %s of site %s lost; direct %s unreachable (pre-flight) (%s ↔ %s over the console's SSH connections)",
			lo, hi, r.Via, g.Name, g.Site, r.Network, wl.Host.Name, wh.Host.Name)
		up.Routes, up.Addrs = append(up.Routes, r), append(up.Addrs, "tcp://"+t.Listen)
		return
	}
}

// pairTunnel returns the SSH tunnel from host from to addr on host to,
// opened once for the run and closed with the gateways (on g, the lost
// gateway the pair went through; stopGateways closes its tunnels and the
// run's one pool).
func (s *submission) pairTunnel(g *runGateway, from, to inventory.Host, addr string) (*sshclient.Tunnel, error) {
	key := from.Name + "|" + to.Name + "|" + addr
	for _, t := range g.tunnels {
		if t.From+"|"+t.To+"|"+t.Addr == key {
			return t, nil
		}
	}
	pool := g.pool
	if pool == nil {
		var err error
		if pool, err = sshclient.NewPool(s.inv, s.opt.Deploy.SSH()); err != nil {
			return nil, err
		}
		// One pool for the run: stopGateways closes one.
		for _, o := range s.gwLost {
			o.pool = pool
		}
		for _, o := range s.gateways {
			o.pool = pool
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), pairTunnelTimeout)
	defer cancel()
	t, err := pool.OpenTunnel(ctx, from, to, addr)
	if err != nil {
		return nil, fmt.Errorf("engine: SSH tunnel %s → %s (%s): %w", from.Name, to.Name, addr, err)
	}
	g.tunnels = append(g.tunnels, t)
	return t, nil
}
