package engine

import (
	"fmt"
	"github.com/gridtui/gridtui/engine/worker"
	"time"

	"github.com/gridtui/gridtui/deploy"
)

// Following a run's gateways. A gateway that exits is reported at once
// (watchGateways). One that is stopped, hung or cut off with its host
// exits nothing: the console hears it no more. A gateway prints its
// counters every gatewayStatsPeriod, so its stdout is its heartbeat, and
// the submitter's failure detector (liveness) watches it as it watches the
// coordinators. Before that detector's bound, the silence already has
// consequences that other nodes report: the workers whose links ran through
// the gateway lose them, and a worker or coordinator on the cut-off host
// falls silent too. A failure reported while a gateway has been silent for
// gatewaySilence is therefore the gateway's: the report names the gateway,
// with what the other node said.

// gatewaySilence is the silence of a gateway (about ten of its counter
// periods) after which a failure that another node reports is blamed on
// the gateway.
const gatewaySilence = 2 * time.Second

// watchGatewayOutput makes the submitter's failure detector watch every
// gateway of the run through its counters.
func (s *submission) watchGatewayOutput() {
	for _, g := range s.gateways {
		g.heard = g.W.LastOutput()
		s.live.WatchFor(g.ID, g.Name, worker.ChildLimits)
	}
}

// hearGateways notes the counters every gateway printed since the last
// call as arrivals.
func (s *submission) hearGateways() {
	for _, g := range s.gateways {
		if at := g.W.LastOutput(); at.After(g.heard) {
			g.heard = at
			s.live.SeenAt(g.ID, at)
		}
	}
}

// gatewayNamed returns the run's gateway called name, nil if none.
func (s *submission) gatewayNamed(name string) *runGateway {
	for _, g := range s.gateways {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// silentGateway returns the gateway of the run silent the longest at now,
// if that is over gatewaySilence, and nil otherwise (a gateway that exited
// is reported by its exit).
func (s *submission) silentGateway(now time.Time) *runGateway {
	var worst *runGateway
	var since time.Time
	for _, g := range s.gateways {
		at := g.W.LastOutput() // fresher than heard, noted on the last tick
		if g.W.Err() != nil || g.heard.IsZero() || now.Sub(at) < gatewaySilence {
			continue
		}
		if worst == nil || at.Before(since) {
			worst, since = g, at
		}
	}
	return worst
}

// silenceCause says that g has printed nothing since it was last heard.
func (g *runGateway) silenceCause(now time.Time) string {
	return fmt.Sprintf("gateway of site %s on %s silent for %.1fs (hung, stopped or cut off)", g.Site, g.Host.Name, now.Sub(g.W.LastOutput()).Seconds())
}

// blame returns who a failure that node reported with cause is to be
// charged to: a gateway silent for gatewaySilence, whose loss explains it
// (a worker whose links ran through it, a node on its cut-off host), or
// node itself. A failure charged to a gateway is kept in s.blamed
// (deadBlamed).
func (s *submission) blame(node, cause string) (string, string) {
	if node == "" || s.gatewayNamed(node) != nil {
		return node, cause
	}
	now := time.Now()
	g := s.silentGateway(now)
	if g == nil {
		return node, cause
	}
	s.blamed = &worker.Failure{Node: node, Cause: cause}
	return g.Name, fmt.Sprintf("%s; %s reported: %s", g.silenceCause(now), node, cause)
}

// lostGateway handles a gateway the failure detector declared lost.
func (s *submission) lostGateway(g *runGateway, p worker.LostPeer) {
	s.fail(g.Name, fmt.Sprintf("gateway of site %s on %s printed nothing for %.1fs, φ %.1f (hung, stopped or cut off)",
		g.Site, g.Host.Name, p.Silent.Seconds(), min(p.Phi, 99)))
}

// lostHosts adds to lost the host of the gateway the run failed on: its
// gateway and any worker there cannot be asked to stop (stopped, cut off).
func (s *submission) lostHosts(lost map[string]bool) map[string]bool {
	if s.failed == nil {
		return lost
	}
	if g := s.gatewayNamed(s.failed.Node); g != nil {
		if lost == nil {
			lost = map[string]bool{}
		}
		lost[g.Host.Name] = true
	}
	return lost
}

// stopGateway stops one gateway: at once when its host is lost.
func stopGateway(w *deploy.Worker, lost bool) {
	if lost {
		stopLost(w)
		return
	}
	stopWorkers([]*deploy.Worker{w}, nil, "")
}
