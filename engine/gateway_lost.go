package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/probe"
)

// A lost gateway (docs/FAILURES.md). A gateway whose process ended, or
// that fell silent, is a loss like a node's: the attempt ends and the run
// recovers on the same workers (none of them is lost with it). The next
// attempt runs without that gateway: the pairs that went through it keep
// their direct routes, and when both ends are on SSH hosts, a last route
// through an SSH tunnel between the two workers' hosts, carried by the
// console's SSH connections (sshclient.Pool.OpenTunnel, as between two
// gateways whose port is closed). Pre-flight takes the first that answers.

// pairTunnelTimeout bounds the tunnels of an attempt: the checks of the
// pairs' direct routes and the opening of the tunnels, all at once.
const pairTunnelTimeout = 15 * time.Second

// pairCheckTimeout bounds the check of one pair's direct route (a filtered
// port answers nothing).
const pairCheckTimeout = gatewayPortTimeout

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
// host may be gone; stopGateways waits for it, lostDone) and kept in
// next.gwLost for the SSH tunnels its site's pairs fall back to.
func carryGateways(next, s *submission) {
	next.gateways, next.gwLost = s.gateways, s.gwLost
	g := s.failedGateway()
	if g == nil {
		return
	}
	if !g.stopped {
		g.stopped = true
		done := make(chan struct{})
		g.lostDone = done
		go func() {
			defer close(done)
			stopLost(g.W)
		}()
	}
	next.gateways = maps.Clone(s.gateways)
	delete(next.gateways, g.Site)
	next.gwLost = maps.Clone(s.gwLost)
	if next.gwLost == nil {
		next.gwLost = map[string]*runGateway{}
	}
	next.gwLost[g.Site] = g
}

// deadBlamed returns the nodes lost with the worker whose own failure blame
// charged to the gateway s failed on, when that worker is lost too: its
// process ended, or it fell silent (heartbeats go to its coordinator and
// the console directly, never through a gateway). It returns nil when the
// failure was a link's, which the gateway's loss explains: the same
// workers again.
func (s *submission) deadBlamed() []string {
	b := s.blamed
	if b == nil || s.failedGateway() == nil || !slices.Contains(s.plan.Ranks, b.Node) {
		return nil
	}
	if w := s.workers[b.Node]; w != nil && isDone(w) || strings.Contains(b.Cause, worker.SilentCause) {
		return lostWith(s, b.Node)
	}
	return nil
}

// waitLost waits for the stop of a lost gateway (carryGateways) to end, at
// most as long as stopLost can take.
func (g *runGateway) waitLost() {
	if g.lostDone == nil {
		return
	}
	t := time.NewTimer(lostLinger + lostStopTimeout + stopTimeout)
	defer t.Stop()
	select {
	case <-g.lostDone:
	case <-t.C:
	}
}

// tunnelPair is a pair of workers that went through a gateway now lost,
// both on SSH hosts: its direct route is checked from the dialing worker's
// host (as checkGatewayPort checks a gateway link), and only when that
// fails is an SSH tunnel opened for it (tunnelRoutes).
type tunnelPair struct {
	up       *worker.NeighbourTask
	direct   probe.Route
	lo, hi   string
	g        *runGateway // the lost gateway the pair went through
	from, to inventory.Host
	addr     string // hi's direct data address, as hi's host sees it
	why      string // why the direct route failed its check ("": it answered)
	t        *sshclient.Tunnel
	err      error
}

func (p *tunnelPair) key() string { return p.from.Name + "|" + p.to.Name + "|" + p.addr }

// addTunnelRoute returns, when lo's or hi's site lost its gateway and both
// are SSH hosts, the pair whose direct route tunnelRoutes checks, and for
// which it opens an SSH tunnel from lo's host to hi's data address when
// that fails; nil otherwise.
func (s *submission) addTunnelRoute(up *worker.NeighbourTask, lo, hi string, sa, sb *inventory.Site) *tunnelPair {
	g := s.gwLost[sa.Name]
	if g == nil {
		g = s.gwLost[sb.Name]
	}
	wl, wh := s.workers[lo], s.workers[hi]
	if g == nil || wl == nil || wh == nil || sa.Launcher == inventory.LauncherLocal || sb.Launcher == inventory.LauncherLocal {
		return nil
	}
	// The SSH hosts the tunnel joins: the dialing worker's and the other's
	// (a second worker's tunnel starts on its host).
	from, to := realHost(wl.Host), realHost(wh.Host)
	for i := len(up.Routes) - 1; i >= 0; i-- {
		if strings.HasPrefix(up.Addrs[i], "tcp://") && up.Routes[i].Via == "" {
			return &tunnelPair{up: up, direct: up.Routes[i], lo: lo, hi: hi, g: g, from: from, to: to, addr: strings.TrimPrefix(up.Addrs[i], "tcp://")}
		}
	}
	return nil
}

// tunnelRoutes checks the direct routes of pairs, all at once from the
// dialing workers' hosts, opens an SSH tunnel for each pair whose check
// failed (or reuses the one an earlier attempt opened), within one bound
// (pairTunnelTimeout) for all, and appends its route as the pair's last
// candidate. The tunnels no pair of this attempt uses (a restarted worker
// listens on a new port) are closed.
func (s *submission) tunnelRoutes(ctx context.Context, pairs []*tunnelPair) {
	defer s.closeStaleTunnels(pairs)
	if len(pairs) == 0 {
		return
	}
	pool, err := s.tunnelPool()
	if err != nil {
		s.logf("", "warning: no SSH tunnel in place of the lost gateways: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, pairTunnelTimeout)
	defer cancel()
	var wg sync.WaitGroup
	began, checked := time.Now(), 0
	for _, p := range pairs {
		if p.t = p.g.pairTunnel(p.key()); p.t != nil {
			continue // checked and opened by an earlier attempt
		}
		checked++
		wg.Go(func() { p.open(ctx, pool) })
	}
	wg.Wait()
	if checked > 0 {
		opened := 0
		for _, p := range pairs {
			if p.t != nil {
				opened++
			}
		}
		s.logf("", "pairs of a lost gateway: %d checked from the dialing hosts in %.2fs, %d through an SSH tunnel", checked, time.Since(began).Seconds(), opened)
	}
	for _, p := range pairs {
		switch {
		case p.err != nil:
			s.logf(p.hi, "warning: %s ↔ %s: no SSH tunnel in place of gateway %s: %v", p.lo, p.hi, p.g.Name, p.err)
		case p.t == nil:
			s.logf(p.hi, "%s ↔ %s: direct %s answers from %s: no SSH tunnel in place of gateway %s", p.lo, p.hi, p.direct.Network, p.from.Name, p.g.Name)
		default:
			if !slices.Contains(p.g.pairs, p.t) {
				p.g.pairs = append(p.g.pairs, p.t)
			}
			r := p.direct
			r.Via = "SSH tunnel " + p.lo + " ↔ " + p.hi
			r.Reason = fmt.Sprintf("%s ↔ %s: via %s: gateway %s of site %s lost; direct %s unreachable (pre-flight%s) (%s ↔ %s over the console's SSH connections)",
				p.lo, p.hi, r.Via, p.g.Name, p.g.Site, r.Network, p.why, p.from.Name, p.to.Name)
			p.up.Routes, p.up.Addrs = append(p.up.Routes, r), append(p.up.Addrs, "tcp://"+p.t.Listen)
		}
	}
}

// open checks p's direct route from p.from and, when it fails, opens p's
// tunnel.
func (p *tunnelPair) open(ctx context.Context, pool *sshclient.Pool) {
	cctx, cancel := context.WithTimeout(ctx, pairCheckTimeout)
	err := pool.DialFrom(cctx, p.from, p.addr)
	cancel()
	switch {
	case err == nil:
		return // the direct route answers: pre-flight takes it
	case errors.Is(err, sshclient.ErrForwardingRefused):
		p.err = fmt.Errorf("engine: %s ↔ %s: %w", p.from.Name, p.to.Name, err)
		return // no tunnel can use that host either
	}
	p.why = ": " + strings.TrimPrefix(err.Error(), "deploy: ")
	if p.t, err = pool.OpenTunnel(ctx, p.from, p.to, p.addr); err != nil {
		p.err = fmt.Errorf("engine: SSH tunnel %s → %s (%s): %w", p.from.Name, p.to.Name, p.addr, err)
	}
}

// pairTunnel returns the pair tunnel of g with key, nil if none.
func (g *runGateway) pairTunnel(key string) *sshclient.Tunnel {
	for _, t := range g.pairs {
		if t.From+"|"+t.To+"|"+t.Addr == key {
			return t
		}
	}
	return nil
}

// closeStaleTunnels closes the pair tunnels of the lost gateways that no
// pair of this attempt uses.
func (s *submission) closeStaleTunnels(pairs []*tunnelPair) {
	used := map[*sshclient.Tunnel]bool{}
	for _, p := range pairs {
		if p.t != nil {
			used[p.t] = true
		}
	}
	for _, g := range s.gwLost {
		kept := g.pairs[:0]
		for _, t := range g.pairs {
			if used[t] {
				kept = append(kept, t)
			} else {
				t.Close()
			}
		}
		g.pairs = kept
	}
}

// tunnelPool returns the run's pool of SSH connections, shared with its
// gateways (stopGateways closes one), dialled the first time it is needed.
func (s *submission) tunnelPool() (*sshclient.Pool, error) {
	for _, g := range s.gwLost {
		if g.pool != nil {
			return g.pool, nil
		}
	}
	pool, err := sshclient.NewPool(s.inv, s.opt.Deploy.SSH())
	if err != nil {
		return nil, err
	}
	for _, o := range s.gwLost {
		o.pool = pool
	}
	for _, o := range s.gateways {
		o.pool = pool
	}
	return pool, nil
}
