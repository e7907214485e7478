package ui

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/ui/page/network"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/probe"
)

// gatewayModel is the console on two local sites that name gateways, with
// a job on alpha-1, alpha-2, beta-1 and beta-2 composed and its pre-flight
// pending, as when its run has just started.
func gatewayModel(t *testing.T) Model {
	t.Helper()
	inv, err := inventory.Load("../testdata/sites/local_gateways.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Inventory: inv, NoLoad: true, StoreDir: t.TempDir()})
	m.compose.ClearNodes()
	for _, p := range []string{"alpha-1", "alpha-2", "beta-1", "beta-2"} {
		m.compose.Pick(true, p)
	}
	m.compose.SetHtable(m.network.Htable())
	for _, p := range m.compose.Pairs() {
		m.preflight[p.A+"↔"+p.B] = "pending"
	}
	m.showPairs()
	return m
}

// routeRow returns the Network view's row of pair a ↔ b.
func routeRow(t *testing.T, v network.Model, a, b string) []string {
	t.Helper()
	for _, r := range v.RouteRows() {
		if r.Key == a+"↔"+b {
			return r.Cells
		}
	}
	t.Fatalf("no row for %s ↔ %s in %+v", a, b, v.RouteRows())
	return nil
}

// TestGatewayRoutesShown: the Network view shows the pair that pre-flight
// sent through the gateways as "via gateway G1 ↔ G2" or "via SSH tunnel
// G1 ↔ G2" with why (a tunnel's reason from the engine's log, then the
// report's routes), the others as Algorithm 1 chose them.
func TestGatewayRoutesShown(t *testing.T) {
	const warn = "alpha-2 ↔ beta-1: ethernet 127.16.64.11 ↔ 127.16.34.20 unreachable (connection refused), falling back to ethernet 127.16.64.11 ↔ 127.16.34.20 via "
	tests := map[string]struct {
		logs      []string
		report    []probe.Route
		net, want string
		pf        string
	}{
		"gateway": {
			logs: []string{warn + "gateway gw-west ↔ gw-east"},
			net:  "⇄ gateway", want: "via gateway gw-west ↔ gw-east: direct ethernet unreachable (pre-flight)", pf: "gateway",
		},
		"tunnel with its why": {
			logs: []string{"gateways gw-west ↔ gw-east linked via SSH tunnel: gateway port 47410 on 10.9.9.9 closed or unreachable from alpha-1 (…)",
				warn + "SSH tunnel gw-west ↔ gw-east"},
			net:  "⇄ SSH tunnel",
			want: "via SSH tunnel gw-west ↔ gw-east: gateway port 47410 on 10.9.9.9 closed or unreachable from alpha-1 (…); direct ethernet unreachable (pre-flight)",
			pf:   "tunnel",
		},
		"the report's word": {
			logs: []string{warn + "gateway gw-west ↔ gw-east"},
			report: []probe.Route{{A: "alpha-2", B: "beta-1", Network: probe.Ethernet, Via: "gateway gw-west ↔ gw-east",
				Reason: "alpha-2 ↔ beta-1: via gateway gw-west ↔ gw-east: direct ethernet unreachable (pre-flight) between sites west and east, whose gateways sites.toml names (alpha-1 ↔ tcp://127.0.0.1:47410)"}},
			net:  "⇄ gateway",
			want: "via gateway gw-west ↔ gw-east: direct ethernet unreachable (pre-flight) between sites west and east, whose gateways sites.toml names (alpha-1 ↔ tcp://127.0.0.1:47410)",
			pf:   "gateway",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := gatewayModel(t)
			var msg runTickMsg
			for _, l := range tc.logs {
				msg.logs = append(msg.logs, engine.LogEvent{Node: "alpha-2", Text: l})
			}
			msg.snap = &engine.Snapshot{Nodes: []engine.NodeStatus{{Node: "alpha-1", Iteration: 1}}}
			m.notePreflight(msg)
			if tc.report != nil {
				m.routes.noteReport(tc.report)
				m.showPairs()
			}
			got := routeRow(t, *m.network, "alpha-2", "beta-1")
			if got[1] != tc.net || got[2] != tc.want || got[3] != tc.pf {
				t.Errorf("row %q,\nwant network %q, reason %q, pre-flight %q", got, tc.net, tc.want, tc.pf)
			}
			if other := routeRow(t, *m.network, "alpha-1", "alpha-2"); other[3] != "ok" || strings.Contains(other[2], "via") {
				t.Errorf("pair alpha-1 ↔ alpha-2: %q, want its direct route, pre-flight ok", other)
			}
			if s := m.network.Summary(); !strings.Contains(s, "1 via "+strings.TrimPrefix(tc.net, "⇄ ")) {
				t.Errorf("summary %q does not count the pair through the gateways", s)
			}
		})
	}
}

// TestGatewayFallbackShown: before a run, a pair of two sites that name
// gateways says which way it would link if its direct path failed; a pair
// inside a site says nothing of the kind.
func TestGatewayFallbackShown(t *testing.T) {
	m := gatewayModel(t)
	if got := routeRow(t, *m.network, "alpha-2", "beta-1"); !strings.Contains(got[2], "(if unreachable: via gateway gw-west ↔ gw-east)") &&
		!strings.Contains(got[2], "(if unreachable: via gateway gw-east ↔ gw-west)") {
		t.Errorf("pair across the sites: %q, want its fallback through the gateways", got)
	}
	if got := routeRow(t, *m.network, "alpha-1", "alpha-2"); strings.Contains(got[2], "unreachable") {
		t.Errorf("pair inside a site: %q, want no fallback", got)
	}
}
