package ui

import (
	"fmt"
	"strings"

	"github.com/gridtui/gridtui/probe"
)

// Routes through the sites' gateways (rmnp spec §8). A pair of two sites
// whose direct path fails pre-flight links through both sites' gateways,
// or through an SSH tunnel between them that the console carries. The
// Network view shows such a pair's route as the run took it: "via gateway
// G1 ↔ G2" or "via SSH tunnel G1 ↔ G2" and why. While the run starts, the
// workers' pre-flight warnings and the engine's log say so; once it has
// ended, its report's routes (engine.Report.Routes, the dialled ones) are
// the word.

// runRoutes is what the console learnt of the last run's routes through
// gateways.
type runRoutes struct {
	// dialled are the routes through gateways by pair ("a↔b").
	dialled map[string]probe.Route
	// tunnelWhy says, for a pair of gateways ("G1 ↔ G2"), why their link
	// runs through an SSH tunnel (no address, a port closed).
	tunnelWhy map[string]string
}

func newRunRoutes() runRoutes {
	return runRoutes{dialled: map[string]probe.Route{}, tunnelWhy: map[string]string{}}
}

// tunnelLogPrefix begins the engine's log line of a gateway link that runs
// through an SSH tunnel ("gateways G1 ↔ G2 linked via SSH tunnel: why").
const (
	tunnelLogPrefix = "gateways "
	tunnelLogMid    = " linked via SSH tunnel: "
)

// noteLog reads one event of the run's log: the engine's word on a tunnel
// between gateways.
func (r *runRoutes) noteLog(text string) {
	if !strings.HasPrefix(text, tunnelLogPrefix) {
		return
	}
	pair, why, ok := strings.Cut(strings.TrimPrefix(text, tunnelLogPrefix), tunnelLogMid)
	if ok {
		r.tunnelWhy[pair] = why
	}
}

// notePreflight reads a worker's pre-flight warning for pair a ↔ b whose
// route base (the composed one) failed: "a ↔ b: <net> … unreachable (…),
// falling back to … via <how>". It records the route through the gateways
// and returns the pre-flight state to show ("gateway", "tunnel"), or ""
// when the fallback is not through gateways.
func (r *runRoutes) notePreflight(base probe.Route, a, b, text string) string {
	i := strings.LastIndex(text, " via ")
	if i < 0 {
		return ""
	}
	via := text[i+len(" via "):]
	if !strings.HasPrefix(via, "gateway ") && !strings.HasPrefix(via, "SSH tunnel ") {
		return ""
	}
	net := strings.TrimPrefix(text, a+" ↔ "+b+": ")
	if j := strings.IndexByte(net, ' '); j >= 0 {
		net = net[:j]
	}
	rt := base
	rt.Via = via
	rt.Reason = fmt.Sprintf("%s ↔ %s: via %s: direct %s unreachable (pre-flight)", a, b, via, net)
	state := "gateway"
	if strings.HasPrefix(via, "SSH tunnel ") {
		state = "tunnel"
		if why := r.tunnelWhy[strings.TrimPrefix(via, "SSH tunnel ")]; why != "" {
			rt.Reason = fmt.Sprintf("%s ↔ %s: via %s: %s; direct %s unreachable (pre-flight)", a, b, via, why, net)
		}
	}
	r.dialled[a+"↔"+b] = rt
	return state
}

// noteReport takes the routes of the run's report: those through gateways
// replace what the log said.
func (r *runRoutes) noteReport(routes []probe.Route) {
	for _, rt := range routes {
		if rt.Via != "" {
			r.dialled[rt.A+"↔"+rt.B] = rt
		}
	}
}
