package probe

import (
	"errors"
	"fmt"
)

// Route is the network a pair of nodes uses and why.
type Route struct {
	// A and B are the node names, in the order asked.
	A string `json:"a"`
	B string `json:"b"`
	// Network is the kind of network chosen (Unix for same-host pairs).
	Network Kind `json:"network"`
	// AAddr and BAddr are the IP addresses of A and B on that network; for a
	// Unix route they are the placeholders "unix:<node name>", which rmnp maps
	// to its socket path.
	AAddr string `json:"a_addr"`
	BAddr string `json:"b_addr"`
	// Via is set on a route through the sites' gateways:
	// "gateway gw-west ↔ gw-east" (the pair's nodes cannot reach each
	// other directly; AAddr and BAddr are still their own addresses).
	Via string `json:"via,omitempty"`
	// Reason is one line a user can read, e.g. "alpha-1 ↔ alpha-2: same
	// cluster (third octet 64 = 64) → infiniband 192.18.64.10 ↔ 192.18.64.11".
	Reason string `json:"reason"`
}

// ErrNoRoute is returned when two nodes have no network they can both use.
var ErrNoRoute = errors.New("no network in common")

// UnixPrefix starts the address placeholders of a Unix route.
const UnixPrefix = "unix:"

// BestNetwork is Algorithm 1 of GRIDHPC: test the locality of a and b, then
// choose the network. Same host → Unix socket; same cluster → the fastest
// network both have (infiniband > myrinet > ethernet, then link speed);
// different clusters → Ethernet. It returns the first of Candidates.
func BestNetwork(a, b Node, loc Locality) (Route, error) {
	loc, err := loc.normalize()
	if err != nil {
		return Route{}, err
	}
	va, vb := newView(&a), newView(&b)
	routes, err := candidates(&va, &vb, loc, 1)
	if err != nil {
		return Route{}, err
	}
	return routes[0], nil
}

// Candidates returns every route a and b may use, best first: the route
// BestNetwork picks, then the fallbacks Preflight tries when it is
// unreachable (e.g. infiniband, then ethernet). Between clusters only
// Ethernet is a candidate, as in the paper. It fails with ErrNoRoute when
// there is none.
func Candidates(a, b Node, loc Locality) ([]Route, error) {
	loc, err := loc.normalize()
	if err != nil {
		return nil, err
	}
	va, vb := newView(&a), newView(&b)
	return candidates(&va, &vb, loc, len(viewKinds)+1)
}

// candidates is Candidates on prepared views and a normalized rule; it stops
// after max routes (1 for BestNetwork, which needs no fallback reasons).
func candidates(a, b *view, loc Locality, max int) ([]Route, error) {
	routes := make([]Route, 0, min(max, 3))
	if sameHost(a, b) {
		host := a.host
		if host == "" {
			host = a.name
		}
		phrase := "same host (" + host + ")"
		routes = append(routes, Route{A: a.name, B: b.name, Network: Unix,
			AAddr: UnixPrefix + a.name, BAddr: UnixPrefix + b.name,
			Reason: a.name + " ↔ " + b.name + ": " + phrase + " → unix socket"})
		routes = appendKinds(routes, max, a, b, phrase, false, []Kind{Loopback})
		return appendKinds(routes, max, a, b, phrase, false, routable), nil
	}
	v := loc.decide(a, b)
	if v.same {
		routes = appendKinds(routes, max, a, b, v.String(), true, routable)
	} else {
		routes = appendKinds(routes, max, a, b, v.String(), false, []Kind{Ethernet})
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("probe: %s ↔ %s: %s: %w", a.name, b.name, v, ErrNoRoute)
	}
	return routes, nil
}

// appendKinds adds one route per kind both nodes can use, in the order of
// kinds. The first route of a same-cluster pair that is not a fast network
// says so; every later route is marked as a fallback.
func appendKinds(routes []Route, max int, a, b *view, phrase string, cluster bool, kinds []Kind) []Route {
	for _, k := range kinds {
		if len(routes) >= max {
			break
		}
		x, y, ok := pickPair(a.of(k), b.of(k))
		if !ok {
			continue
		}
		why := phrase
		switch {
		case len(routes) > 0:
			why += ", fallback"
		case cluster && !k.Fast():
			why += ", no fast network in common"
		}
		xs, ys := x.String(), y.String()
		routes = append(routes, Route{A: a.name, B: b.name, Network: k, AAddr: xs, BAddr: ys,
			Reason: a.name + " ↔ " + b.name + ": " + why + " → " + string(k) + " " + xs + " ↔ " + ys})
	}
	return routes
}

// sameHost: a node is on its own host; otherwise equal non-empty Host.
func sameHost(a, b *view) bool {
	return a.name == b.name || (a.host != "" && a.host == b.host)
}

// ErrUnknownNode is returned when a node name is not in the Htable.
var ErrUnknownNode = errors.New("unknown node")
