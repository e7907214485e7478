package probe

import (
	"errors"
	"fmt"
	"strings"
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
	routes, err := Candidates(a, b, loc)
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
	if err := loc.Validate(); err != nil {
		return nil, err
	}
	var routes []Route
	var phrase string
	if sameHost(a, b) {
		phrase = "same host (" + hostOf(a) + ")"
		routes = append(routes, Route{A: a.Name, B: b.Name, Network: Unix,
			AAddr: UnixPrefix + a.Name, BAddr: UnixPrefix + b.Name,
			Reason: fmt.Sprintf("%s ↔ %s: %s → unix socket", a.Name, b.Name, phrase)})
		routes = appendKinds(routes, a, b, phrase, []Kind{Loopback})
		routes = appendKinds(routes, a, b, phrase, routable)
		return routes, nil
	}
	same, phrase, err := loc.SameCluster(a, b)
	if err != nil {
		return nil, err
	}
	if same {
		routes = appendKinds(routes, a, b, phrase, routable)
	} else {
		routes = appendKinds(routes, a, b, phrase, []Kind{Ethernet})
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("probe: %s ↔ %s: %s: %w", a.Name, b.Name, phrase, ErrNoRoute)
	}
	return routes, nil
}

// appendKinds adds one route per kind both nodes can use, in the order of
// kinds. The first route of a same-cluster pair that is not a fast network
// says so; every later route is marked as a fallback.
func appendKinds(routes []Route, a, b Node, phrase string, kinds []Kind) []Route {
	for _, k := range kinds {
		x, y, ok := pickPair(a.usable(k), b.usable(k))
		if !ok {
			continue
		}
		why := phrase
		switch {
		case len(routes) > 0:
			why += ", fallback"
		case k == Ethernet && sameClusterPhrase(phrase):
			why += ", no fast network in common"
		}
		routes = append(routes, Route{A: a.Name, B: b.Name, Network: k,
			AAddr: x.addr.String(), BAddr: y.addr.String(),
			Reason: fmt.Sprintf("%s ↔ %s: %s → %s %s ↔ %s", a.Name, b.Name, why, k, x.addr, y.addr)})
	}
	return routes
}

func sameClusterPhrase(p string) bool { return strings.HasPrefix(p, "same cluster") }

// sameHost: a node is on its own host; otherwise equal non-empty Host.
func sameHost(a, b Node) bool {
	return a.Name == b.Name || (a.Host != "" && a.Host == b.Host)
}

func hostOf(n Node) string {
	if n.Host != "" {
		return n.Host
	}
	return n.Name
}

// ErrUnknownNode is returned when a node name is not in the Htable.
var ErrUnknownNode = errors.New("unknown node")
