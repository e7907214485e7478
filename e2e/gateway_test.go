//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
)

// TestGatewaySchemes runs each scheme across two sites whose node networks
// are not routed to each other (Config.Gateways): the inter-site pair's
// direct Ethernet fails pre-flight and its link runs through both sites'
// gateways over the WAN, the report says so, the WAN carried the halos,
// and the synchronous result is bit for bit the serial one.
func TestGatewaySchemes(t *testing.T) {
	g := newGridT(t, Config{Gateways: "100mbit"})
	deployOrSkip(t, g)
	const n, nodes = 24, 6
	p := obstacle.Problem{N: n, Eps: 1e-6}
	_, k, _ := obstacle.SerialSolve(p)
	// A synchronous run's token detector ends 2(b−1) iterations after the
	// serial criterion holds (engine's TestSolveEndToEnd); after as many
	// iterations the serial iterate is the reference, bit for bit.
	iters := k + 2*(nodes-1)
	want := serialAfter(p, iters)
	for _, scheme := range []string{"sync", "async", "hybrid"} {
		t.Run(scheme, func(t *testing.T) {
			out := t.TempDir()
			os.Chmod(out, 0o777)
			wanBefore, err := g.WANBytes(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			run := runJob(t, g, "--nodes", "6", "--scheme", scheme, "--n", "24", "--eps", "1e-6", "--wall-time", "2m", "--out", out)
			wanAfter, err := g.WANBytes(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			rep := run.report
			if run.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
				t.Fatalf("%s run: exit %d, report %+v", scheme, run.code, rep)
			}
			via := 0
			for _, r := range rep.Routes {
				a, b := hostOf(t, g, r.A), hostOf(t, g, r.B)
				cross := a.Site != b.Site
				if cross != (r.Via != "") {
					t.Errorf("route %s ↔ %s: via %q (%s)", a.Name, b.Name, r.Via, r.Reason)
				}
				if cross {
					via++
					if !strings.Contains(r.Via, "gw-siteA") || !strings.Contains(r.Via, "gw-siteB") || !strings.Contains(r.Reason, "unreachable") {
						t.Errorf("route %s ↔ %s: via %q, reason %q: want both gateways named and why", a.Name, b.Name, r.Via, r.Reason)
					}
				}
			}
			if via == 0 {
				t.Errorf("no route through the gateways: %+v", rep.Routes)
			}
			gw := bytesOn(rep.Traffic, "gateway")
			var wan uint64
			for h := range wanAfter {
				wan += wanAfter[h] - wanBefore[h]
			}
			t.Logf("the run counted %d bytes on gateway links, the WAN carried %d", gw, wan)
			if gw == 0 || wan == 0 {
				t.Errorf("gateway traffic %d bytes, WAN %d bytes: want both > 0", gw, wan)
			}
			if !strings.Contains(run.raw, "gateway gw-siteA → gw-siteB") && !strings.Contains(run.raw, `"gateways"`) {
				t.Errorf("the report does not show the gateways' traffic")
			}
			if scheme == "sync" {
				for _, nr := range rep.Nodes {
					if nr.Iterations != iters {
						t.Errorf("node %s: %d iterations, want %d (serial %d + 2(b−1))", nr.Node, nr.Iterations, iters, k)
					}
				}
				checkSerial(t, out, want)
			}
		})
	}
}

// checkSerial compares the raw solution written in dir with the serial
// reference, bit for bit.
func checkSerial(t *testing.T, dir string, want []float64) {
	t.Helper()
	raws, _ := filepath.Glob(filepath.Join(dir, "*.raw"))
	if len(raws) != 1 {
		t.Fatalf("want one .raw solution in %s, found %v", dir, raws)
	}
	got, err := os.ReadFile(raws[0])
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	for _, v := range want {
		w.Write(leFloat(v))
	}
	if !bytes.Equal(got, w.Bytes()) {
		t.Errorf("the synchronous solution through the gateways differs from the serial one (%d bytes vs %d)", len(got), w.Len())
	}
}

// TestGatewayKilled kills a site's gateway in the middle of a run over a
// slow WAN: the run fails within the heartbeat timeout (bounded generously
// for a loaded machine), the report names the gateway, and nothing is left
// running on any host.
func TestGatewayKilled(t *testing.T) {
	g := newGridT(t, Config{Gateways: "10mbit"})
	deployOrSkip(t, g)
	// Without checkpoints: with them, the run recovers (TestGatewayLostTunnel).
	run := startRun(t, g, 3*time.Minute, "--nodes", "6", "--scheme", "sync", "--n", "32",
		"--eps", "1e-14", "--max-iter", "10000000", "--wall-time", "2m", "--checkpoint-every", "-1")
	run.waitIterations(t, 20, time.Minute)
	h := killGateway(t, g, "beta")
	checkGatewayFailed(t, run, time.Now(), h, "killed")
	checkNoWorkers(t, g, nil)
}

// killGateway SIGKILLs the gateway of the site of cluster on its host,
// and returns that host.
func killGateway(t *testing.T, g *Grid, cluster string) *Host {
	t.Helper()
	h := g.GatewayHost(cluster)
	var killed bool
	for _, p := range workerPids(h) {
		cmdline, _ := os.ReadFile("/proc/" + p + "/cmdline")
		if strings.Contains(string(cmdline), "gateway") {
			if _, err := g.Exec(context.Background(), h.Name, "kill", "-KILL", p); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	if !killed {
		t.Fatalf("%s runs no gridtui gateway", h.Name)
	}
	return h
}

// TestGatewayLostTunnel kills a site's gateway in the middle of a
// synchronous run that checkpoints: the run recovers on the same workers,
// the pairs across the sites (whose direct paths fail pre-flight) link
// through SSH tunnels between their hosts, and it ends ok with a checked
// residual.
func TestGatewayLostTunnel(t *testing.T) {
	g := newGridT(t, Config{Gateways: "10mbit"})
	deployOrSkip(t, g)
	run := startRun(t, g, 3*time.Minute, "--nodes", "6", "--scheme", "sync", "--n", "32",
		"--eps", "1e-9", "--wall-time", "2m", "--checkpoint-every", "20")
	// The run converges at about 700 iterations (deterministic: sync);
	// checkpoints every 20 leave several before the kill.
	const killAt = 100
	run.waitIterations(t, killAt, time.Minute)
	killGateway(t, g, "beta")
	out := run.wait(t)
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || len(rep.Recoveries) == 0 || rep.Recoveries[0].Node != "gw-siteB" {
		t.Fatalf("want a run recovered from gw-siteB's loss, got exit %d, report %+v", out.code, rep)
	}
	t.Logf("recovered: %+v", rep.Recoveries[0])
	// The kill must land well before convergence: the restore point is
	// at most about where the kill was, and every part ran on past four
	// times that.
	if rc := rep.Recoveries[0]; rc.From >= 2*killAt {
		t.Errorf("restored from iteration %d, the gateway was killed at about %d", rc.From, killAt)
	}
	// Every part's copies stay in its own site (the sites' networks are
	// apart): all hold several checkpoints at the kill, so the run does
	// not restart from the start.
	if rc := rep.Recoveries[0]; rc.From == 0 {
		t.Errorf("restored from the start (%+v): the parts' copies were not kept, with checkpoints every 20 and the kill at about %d", rc, killAt)
	}
	for _, nr := range rep.Nodes {
		if nr.Iterations < 4*killAt {
			t.Errorf("node %s: %d iterations, want well above the kill at %d (the run must converge after it)", nr.Node, nr.Iterations, killAt)
		}
	}
	tunnels := 0
	for _, r := range rep.Routes {
		if strings.HasPrefix(r.Via, "gateway ") || strings.Contains(r.Via, "gw-siteB") {
			t.Errorf("route %s ↔ %s via %q after the loss of gw-siteB", r.A, r.B, r.Via)
		}
		if strings.HasPrefix(r.Via, "SSH tunnel ") {
			tunnels++
		}
	}
	if tunnels == 0 {
		t.Errorf("no route through an SSH tunnel after the gateway's loss: %+v", rep.Routes)
	}
	checkNoWorkers(t, g, nil)
}

// checkGatewayFailed waits for run, which lost site B's gateway on host h at
// start (how: "killed", "cut off"), and checks that it stopped within 30 s
// with a report naming gw-siteB on h's address and, in its cause, the
// words in cause.
func checkGatewayFailed(t *testing.T, run *liveRun, start time.Time, h *Host, how string, cause ...string) {
	t.Helper()
	out := run.wait(t)
	took := time.Since(start)
	t.Logf("the run stopped %v after the gateway was %s", took.Round(time.Millisecond), how)
	if took > 30*time.Second {
		t.Errorf("the run took %v to stop after its gateway was %s", took, how)
	}
	rep := out.report
	if out.code == 0 || rep == nil || rep.Outcome != "failed" {
		t.Fatalf("want a failed run, got exit %d, report %+v", out.code, rep)
	}
	ok := rep.FailedNode == "gw-siteB" && strings.Contains(rep.Cause, h.Ethernet.String())
	for _, w := range cause {
		ok = ok && strings.Contains(rep.Cause, w)
	}
	if !ok {
		t.Errorf("the report names %q (%s), want gateway gw-siteB on %s, its cause with %q", rep.FailedNode, rep.Cause, h.Ethernet, cause)
	}
}

// serialAfter is the serial iterate after k sweeps.
func serialAfter(p obstacle.Problem, k int) []float64 {
	u := obstacle.InitialGuess(p)
	next := make([]float64, len(u))
	for range k {
		obstacle.SerialSweep(p, u, next)
		u, next = next, u
	}
	return u
}

// leFloat is v's little-endian bytes, as the .raw solution stores it.
func leFloat(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

// TestGatewayTunnel runs across two sites whose gateways have no port open
// to each other (no WAN, no address in sites.toml): gridtui links them
// through an SSH tunnel over its own connections to both gateway hosts,
// the report says so, and the synchronous result is still the serial one.
func TestGatewayTunnel(t *testing.T) {
	g := newGridT(t, Config{Gateways: gatewayTunnel})
	deployOrSkip(t, g)
	const n, nodes = 24, 6
	p := obstacle.Problem{N: n, Eps: 1e-6}
	_, k, _ := obstacle.SerialSolve(p)
	want := serialAfter(p, k+2*(nodes-1))
	for _, scheme := range []string{"sync", "async"} {
		t.Run(scheme, func(t *testing.T) {
			out := t.TempDir()
			os.Chmod(out, 0o777)
			run := runJob(t, g, "--nodes", "6", "--scheme", scheme, "--n", "24", "--eps", "1e-6", "--wall-time", "2m", "--out", out)
			rep := run.report
			if run.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
				t.Fatalf("%s run: exit %d, report %+v", scheme, run.code, rep)
			}
			tunnels := 0
			for _, r := range rep.Routes {
				if strings.HasPrefix(r.Via, "SSH tunnel gw-site") {
					tunnels++
				}
			}
			if tunnels == 0 {
				t.Errorf("no route through an SSH tunnel: %+v", rep.Routes)
			}
			if scheme == "sync" {
				checkSerial(t, out, want)
			}
		})
	}
}
