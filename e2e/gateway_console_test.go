//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// TestGatewayConsole walks a new user through the console (in tmux, in the
// console namespace) on two sites whose node networks are not routed to
// each other, linked through their gateways over a WAN, then through an SSH
// tunnel (no gateway address): probe the hosts (Network, p), load a
// synchronous job across both sites (Compose, ctrl+o) and run it. The Run
// view must show the gateway link's traffic, S2 ratio and queue; the
// Network view must show the pair across the sites "via gateway G1 ↔ G2" or
// "via SSH tunnel G1 ↔ G2" and why; the solution must be the serial one bit
// for bit; and nothing may be left running once the console has quit.
func TestGatewayConsole(t *testing.T) {
	for _, c := range []struct {
		name, gateways string
		// net is the Network cell of the pair across the sites, via the
		// start of its Reason cell, preflight its Pre-flight cell.
		net, via, preflight string
	}{
		{"gateways", "100mbit", "⇄ gateway", "via gateway gw-siteA ↔ gw-siteB: direct ethernet unreachable", "gateway"},
		{"tunnel", gatewayTunnel, "⇄ SSH tunnel", "via SSH tunnel gw-siteA ↔ gw-siteB: no gateway address in sites.toml", "tunnel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGridT(t, Config{Gateways: c.gateways})
			deployOrSkip(t, g)
			out := t.TempDir()
			os.Chmod(out, 0o777)
			const n, nodes = 24, 6
			job := fmt.Sprintf("name = \"gw-console\"\napp = \"obstacle\"\nscheme = \"sync\"\nwall_time = \"2m\"\n\n"+
				"[obstacle]\nn = %d\neps = 1e-6\n\n[nodes]\nclusters = [\"alpha\", \"beta\"]\nany = %d\n\n"+
				"[output]\ndir = %q\nraw = true\n", n, nodes, out)
			if err := os.WriteFile(filepath.Join(g.ConsoleHome, "job.toml"), []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			waitFor, keys := tmuxConsole(t, g, gridtuiBinary(t))
			waitFor(time.Minute, "Sites")
			keys("2")
			waitFor(30*time.Second, "No nodes probed yet", "Htable")
			keys("p")
			waitFor(2*time.Minute, "6 nodes · locality rule")
			keys("3")
			waitFor(30*time.Second, "Job file")
			keys("C-o")
			waitFor(30*time.Second, "loaded job.toml")
			waitFor(time.Minute, "ready: 6 nodes")
			keys("2")
			s := waitFor(30*time.Second, "Job pairs")
			t.Logf("the Network view before the run:\n%s", s)
			keys("3")
			waitFor(30*time.Second, "ready: 6 nodes")
			keys("r")
			s = waitFor(3*time.Minute, " · finished · ", " · failed · ")
			if !strings.Contains(s, " · finished · ") {
				t.Fatalf("the console's run did not finish:\n%s", s)
			}
			t.Logf("the Run view once the run has finished:\n%s", s)
			for _, want := range []string{"Gateway links", "gw-siteA → gw-siteB: S2 ", "gw-siteB → gw-siteA: S2 ", "(DATA ", "queue "} {
				if !strings.Contains(s, want) {
					t.Errorf("the Run view lacks %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, "(DATA 0 B") || strings.Contains(s, " 0 msg") {
				t.Errorf("the Run view shows a gateway link that carried nothing:\n%s", s)
			}
			keys("2")
			s = waitFor(30*time.Second, c.net)
			t.Logf("the Network view after the run:\n%s", s)
			row := ""
			for _, l := range strings.Split(s, "\n") {
				if strings.Contains(l, c.net) {
					row = l
				}
			}
			if !strings.Contains(row, c.via) || !strings.Contains(row, c.preflight) {
				t.Errorf("the pair across the sites reads %q, want %q and pre-flight %q", row, c.via, c.preflight)
			}
			if !strings.Contains(s, "1 via "+strings.TrimPrefix(c.net, "⇄ ")) {
				t.Errorf("the Network view's summary does not count the pair through the gateways:\n%s", s)
			}
			p := obstacle.Problem{N: n, Eps: 1e-6}
			_, k, _ := obstacle.SerialSolve(p)
			checkSerial(t, out, serialAfter(p, k+2*(nodes-1)))
			keys("q")
			waitFor(30*time.Second, "console-exited-0")
			checkNoWorkers(t, g, nil)
		})
	}
}

// TestGatewayCutOff cuts a site's gateway host off (its links down: the
// gateway process runs on, unheard) in the middle of a run over a slow WAN:
// the workers that lose their links through it, and the node on that host,
// fall silent or complain, but the run must fail naming the gateway, within
// the heartbeat timeout (bounded generously for a loaded machine), and
// leave nothing running on the other hosts.
func TestGatewayCutOff(t *testing.T) {
	g := newGridT(t, Config{Gateways: "10mbit"})
	deployOrSkip(t, g)
	run := startRun(t, g, 3*time.Minute, "--nodes", "6", "--scheme", "sync", "--n", "32",
		"--eps", "1e-14", "--max-iter", "10000000", "--wall-time", "2m", "--checkpoint-every", "-1")
	run.waitIterations(t, 20, time.Minute)
	h := g.GatewayHost("beta")
	nics := []string{"wan0", "ib0", "eth0"}
	t.Cleanup(func() {
		for _, nic := range nics {
			g.LinkUp(context.Background(), h.Name, nic)
		}
	})
	start := time.Now()
	for _, nic := range nics {
		if err := g.LinkDown(context.Background(), h.Name, nic); err != nil {
			t.Fatal(err)
		}
	}
	checkGatewayFailed(t, run, start, h, "cut off", "cut off")
	checkNoWorkers(t, g, h)
}

// TestGatewayPortClosed runs across two sites whose sites.toml names each
// gateway's address and ports, which no gateway can reach (no WAN: as if a
// firewall closed them): the console finds the port closed when it checks
// the gateway link, falls back to the SSH tunnel, the route says why, and
// the synchronous result is the serial one.
func TestGatewayPortClosed(t *testing.T) {
	g := newGridT(t, Config{Gateways: gatewayClosed})
	deployOrSkip(t, g)
	out := t.TempDir()
	os.Chmod(out, 0o777)
	const n, nodes = 24, 6
	run := runJob(t, g, "--nodes", "6", "--scheme", "sync", "--n", "24", "--eps", "1e-6", "--wall-time", "2m", "--out", out)
	rep := run.report
	if run.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
		t.Fatalf("run: exit %d, report %+v\n%s", run.code, rep, run.raw)
	}
	tunnels := 0
	for _, r := range rep.Routes {
		if r.Via == "" {
			continue
		}
		tunnels++
		// The gateway of lower id dials the other: either way round.
		ab := fmt.Sprintf("gateway port 7400 on %s closed or unreachable from %s", wanAddr(1), g.GatewayHost("alpha").Ethernet)
		ba := fmt.Sprintf("gateway port 7400 on %s closed or unreachable from %s", wanAddr(0), g.GatewayHost("beta").Ethernet)
		if !strings.HasPrefix(r.Via, "SSH tunnel gw-site") || !strings.Contains(r.Reason, "via "+r.Via+": ") ||
			!strings.Contains(r.Reason, ab) && !strings.Contains(r.Reason, ba) {
			t.Errorf("route %s ↔ %s: via %q, reason %q: want the tunnel, and %q or %q", r.A, r.B, r.Via, r.Reason, ab, ba)
		}
	}
	if tunnels == 0 {
		t.Errorf("no route through the SSH tunnel: %+v", rep.Routes)
	}
	p := obstacle.Problem{N: n, Eps: 1e-6}
	_, k, _ := obstacle.SerialSolve(p)
	checkSerial(t, out, serialAfter(p, k+2*(nodes-1)))
	checkNoWorkers(t, g, nil)
}
