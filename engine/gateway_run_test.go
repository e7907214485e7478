package engine

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunThroughGateways runs a synchronous job across two local sites
// whose pairs are made to link through the sites' gateways (gateway
// processes of their own, on loopback): the result is the serial iterate bit
// for bit, the
// report says which pair went through which gateways, and the gateways
// counted the halos they carried (and no control message: the tokens ride
// in the halos).
func TestRunThroughGateways(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	const n, nodes = 12, 4
	p := jobs.Obstacle{N: n, Eps: 1e-7}
	spec := jobs.Spec{App: "obstacle", Obstacle: jobs.ObstacleSpec{N: n, Eps: p.Eps}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: nodes}, Cores: 1}
	rep := runJob(t, inv, spec, RunOptions{NoRecord: true, StoreDir: t.TempDir()})
	_, k, _ := jobs.SerialSolve(p)
	ref := serialAfter(p, k+2*(nodes-1))
	for i := range ref {
		if math.Float64bits(rep.Solution[i]) != math.Float64bits(ref[i]) {
			t.Fatalf("point %d: %v, serial %v", i, rep.Solution[i], ref[i])
		}
	}
	via := 0
	for _, r := range rep.Routes {
		if r.Via != "" {
			via++
			if r.Via != "gateway gw-west ↔ gw-east" || !strings.Contains(r.Reason, "sites west and east") {
				t.Errorf("route %s ↔ %s: via %q, reason %q", r.A, r.B, r.Via, r.Reason)
			}
		}
	}
	if via != 1 {
		t.Errorf("%d routes through the gateways, want the one pair across the sites: %+v", via, rep.Routes)
	}
	if len(rep.Gateways) != 2 {
		t.Fatalf("gateway links in the report: %+v", rep.Gateways)
	}
	for _, g := range rep.Gateways {
		// A synchronous run's convergence tokens ride in its halos: one DATA
		// message per iteration and link, and no CTRL but the dialer's first
		// message, which names the network it kept.
		if g.DataMessages == 0 || g.CtrlMessages > 1 {
			t.Errorf("gateway %s → %s carried %d DATA and %d CTRL messages, want some DATA and at most 1 CTRL", g.Name, g.Peer, g.DataMessages, g.CtrlMessages)
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "via gateway gw-west ↔ gw-east") || !strings.Contains(s, "gateway gw-east → gw-west:") {
		t.Errorf("the text report does not show the gateways:\n%s", s)
	}
}

func TestGatewayFallback(t *testing.T) {
	base := loadInventory(t, "../testdata/sites/local_gateways.toml")
	noAddr := *base
	noAddr.Sites = slices.Clone(base.Sites)
	for i := range noAddr.Sites {
		noAddr.Sites[i].Gateways = []deploy.Gateway{{Host: base.Sites[i].Gateways[0].Host, Ports: []int{47400}}}
	}
	noGateway := *base
	noGateway.Sites = slices.Clone(base.Sites)
	noGateway.Sites[1].Gateways = nil
	tests := map[string]struct {
		inv  *deploy.Inventory
		a, b string
		want string
	}{
		"same site":         {base, "alpha-1", "alpha-2", ""},
		"two sites":         {base, "alpha-2", "beta-1", "via gateway gw-west ↔ gw-east"},
		"no address":        {&noAddr, "alpha-2", "beta-1", "via SSH tunnel gw-west ↔ gw-east"},
		"one site has none": {&noGateway, "alpha-2", "beta-1", ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := GatewayFallback(tt.inv, tt.a, tt.b); got != tt.want {
				t.Errorf("GatewayFallback(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestRunThroughGatewaysAsync runs the asynchronous and hybrid schemes
// across the two local sites through their gateways (the cross-site link
// asynchronous in both): the run converges, its true residual checked by
// runJob, and the gateways carried its halos.
func TestRunThroughGatewaysAsync(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	for _, scheme := range []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid} {
		t.Run(string(scheme), func(t *testing.T) {
			spec := jobs.Spec{App: "obstacle", Obstacle: jobs.ObstacleSpec{N: 12, Eps: 1e-7}, Scheme: scheme,
				Nodes: jobs.NodeSelection{Any: 4}, Cores: 1}
			rep := runJob(t, inv, spec, RunOptions{})
			var data uint64
			for _, g := range rep.Gateways {
				data += g.DataMessages
			}
			if len(rep.Gateways) != 2 || data == 0 {
				t.Errorf("gateway links in the report: %+v", rep.Gateways)
			}
		})
	}
}
