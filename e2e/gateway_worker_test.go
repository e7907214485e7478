//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestGatewayWorkerLost kills, in the middle of a synchronous run that
// checkpoints across two sites whose nodes reach each other only through
// their gateways, a worker whose pair crosses the sites: site A's last
// rank (the dialing end, not on its gateway host), or site B's first (the
// dialed end, on its gateway's host, whose gateway keeps running). Its
// part restarts on a new worker of its host, whose new data port the
// site's gateway must forward to, and the run ends ok with a checked
// residual.
func TestGatewayWorkerLost(t *testing.T) {
	for _, c := range []struct {
		name    string
		cluster string
		last    bool
	}{{"dialing end", "alpha", true}, {"dialed end on the gateway host", "beta", false}} {
		t.Run(c.name, func(t *testing.T) {
			g := newGridT(t, Config{Gateways: "10mbit"})
			deployOrSkip(t, g)
			run := startRun(t, g, 3*time.Minute, "--nodes", "6", "--scheme", "sync", "--n", "32",
				"--eps", "1e-9", "--wall-time", "2m", "--checkpoint-every", "20")
			const killAt = 100
			run.waitIterations(t, killAt, time.Minute)
			hosts := g.Cluster(c.cluster)
			victim := hosts[0]
			if c.last {
				victim = hosts[len(hosts)-1]
			}
			killWorkerNotGateway(t, g, victim)
			out := run.wait(t)
			rep := out.report
			if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || len(rep.Recoveries) == 0 {
				logWorkerTails(t, g, 60)
				t.Fatalf("want a run recovered from %s's loss, got exit %d, report %+v", victim.Name, out.code, rep)
			}
			for _, r := range rep.Recoveries {
				t.Logf("recovery: %s (%s) rank %d → %s (%s) from %d in %.2fs", r.Node, r.Cause, r.Rank, r.To, r.How, r.From, r.Seconds)
			}
			if r := rep.Recoveries[0]; r.Node != victim.Ethernet.String() {
				t.Errorf("the first recovery is of %s, want %s", r.Node, victim.Ethernet)
			}
			crossing := 0
			for _, r := range rep.Routes {
				if strings.HasPrefix(r.Via, "gateway ") {
					crossing++
				}
			}
			if crossing == 0 {
				t.Errorf("no route through the gateways after the recovery: %+v", rep.Routes)
			}
			checkNoWorkers(t, g, nil)
		})
	}
}

// killWorkerNotGateway SIGKILLs h's gridtui workers but not a gateway.
func killWorkerNotGateway(t *testing.T, g *Grid, h *Host) {
	t.Helper()
	killed := 0
	for _, p := range workerPids(h) {
		cmdline, _ := os.ReadFile("/proc/" + p + "/cmdline")
		if strings.Contains(string(cmdline), "gateway") {
			continue
		}
		if _, err := g.Exec(context.Background(), h.Name, "kill", "-KILL", p); err == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatalf("%s runs no gridtui worker but a gateway", h.Name)
	}
}
