//go:build e2e

package e2e

import (
	"context"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/probe"
)

// deployOrSkip deploys to g and skips the test when gridtui run is not
// there yet.
func deployOrSkip(t *testing.T, g *Grid) {
	t.Helper()
	if r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy"); r.code != 0 {
		t.Fatalf("deploy: exit %d:\n%s", r.code, r.out)
	}
	r := gridtui(t, g, g.SitesFile, time.Minute, "run", "--help")
	skipIfNotImplemented(t, r, "gridtui run")
	t.Cleanup(func() {
		gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--stop", "--clean")
		checkClean(t, g)
	})
}

// hostOf maps a node name of the report (the host's eth0 address) to the
// grid's host.
func hostOf(t *testing.T, g *Grid, node string) *Host {
	t.Helper()
	a, err := netip.ParseAddr(node)
	if h := g.ByAddr(a); err == nil && h != nil {
		return h
	}
	t.Fatalf("report names node %q, which is no host of the grid", node)
	return nil
}

// wantNetworks returns the networks each rank's halos must use: Infiniband
// to a neighbour rank in the same cluster, Ethernet to one in the other.
func wantNetworks(t *testing.T, g *Grid, nodes []nodeReport) map[int]map[string]bool {
	byRank := map[int]*Host{}
	for _, n := range nodes {
		byRank[n.Rank] = hostOf(t, g, n.Node)
	}
	want := map[int]map[string]bool{}
	for r, h := range byRank {
		want[r] = map[string]bool{}
		for _, nb := range []int{r - 1, r + 1} {
			if o, ok := byRank[nb]; ok {
				net := string(probe.Ethernet)
				if o.Cluster == h.Cluster {
					net = string(probe.Infiniband)
				}
				want[r][net] = true
			}
		}
	}
	return want
}

// checkTraffic checks the report's per-node, per-network counters against
// the neighbours' clusters, and the run's Infiniband bytes against what the
// kernel counted on the hosts' ib0 (before → after).
func checkTraffic(t *testing.T, g *Grid, rep *runReport, before, after map[string]map[string]uint64) {
	t.Helper()
	want := wantNetworks(t, g, rep.Nodes)
	for _, n := range rep.Nodes {
		for _, net := range []string{string(probe.Infiniband), string(probe.Ethernet)} {
			got := bytesOn(n.Traffic, net) > 0
			if got != want[n.Rank][net] {
				t.Errorf("rank %d (%s): %s traffic %d bytes, want some=%v (its neighbours: %v)",
					n.Rank, hostOf(t, g, n.Node).Name, net, bytesOn(n.Traffic, net), want[n.Rank][net], want[n.Rank])
			}
		}
	}
	var ib uint64
	for _, h := range g.Hosts {
		ib += after[h.Name]["ib0"] - before[h.Name]["ib0"]
	}
	rb := bytesOn(rep.Traffic, string(probe.Infiniband))
	t.Logf("Infiniband: the run counted %d bytes, the kernel %d on the hosts' ib0", rb, ib)
	if ib < rb || rb == 0 {
		t.Errorf("the run reports %d Infiniband bytes, the hosts' ib0 received %d", rb, ib)
	}
}

// checkRoutes checks the run's routes: Infiniband between the ib0 addresses
// inside a cluster, Ethernet between the eth0 addresses across clusters.
func checkRunRoutes(t *testing.T, g *Grid, routes []probe.Route) {
	t.Helper()
	if len(routes) == 0 {
		t.Error("the report lists no routes")
	}
	for _, r := range routes {
		a, b := hostOf(t, g, r.A), hostOf(t, g, r.B)
		kind, aa, ba := probe.Ethernet, a.Ethernet, b.Ethernet
		if a.Cluster == b.Cluster {
			kind, aa, ba = probe.Infiniband, a.Fast, b.Fast
		}
		if r.Network != kind || r.AAddr != aa.String() || r.BAddr != ba.String() {
			t.Errorf("route %s ↔ %s: %s %s ↔ %s, want %s %s ↔ %s", a.Name, b.Name, r.Network, r.AAddr, r.BAddr, kind, aa, ba)
		}
	}
}

// allNICBytes reads every host's NIC counters.
func allNICBytes(t *testing.T, g *Grid) map[string]map[string]uint64 {
	out := map[string]map[string]uint64{}
	for _, h := range g.Hosts {
		out[h.Name] = nicBytes(t, g, h.Name)
	}
	return out
}

// TestRunSchemes runs the obstacle problem with each scheme across both
// clusters and checks that it completes with a verified solution, that
// intra-cluster halos went over Infiniband (ib0) and inter-cluster halos
// over Ethernet (eth0) — by the run's own per-network counters and by the
// kernel's ib0 counters — and that the WAN link carried the Ethernet halos;
// every host's statuses carry its load, and no warning is logged.
func TestRunSchemes(t *testing.T) {
	g := newGridT(t, Config{LimitWAN: "1gbit"})
	deployOrSkip(t, g)
	for _, scheme := range []string{"sync", "async", "hybrid"} {
		t.Run(scheme, func(t *testing.T) {
			before, wanBefore := allNICBytes(t, g), wanSent(t, g, "1Gbit")
			out := runJob(t, g, "--nodes", "6", "--scheme", scheme, "--n", "32", "--eps", "1e-6", "--wall-time", "2m")
			after, wanAfter := allNICBytes(t, g), wanSent(t, g, "1Gbit")
			rep := out.report
			if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
				t.Fatalf("%s run: exit %d, report %+v", scheme, out.code, rep)
			}
			if len(rep.Nodes) != len(g.Hosts) {
				t.Errorf("%d nodes in the report, want %d", len(rep.Nodes), len(g.Hosts))
			}
			checkRunRoutes(t, g, rep.Routes)
			checkTraffic(t, g, rep, before, after)
			// Every SSH host's load reaches the console (its Sites view shows
			// it), and nothing warns about networks no worker listens on.
			for _, n := range rep.Nodes {
				if !out.loaded[n.Node] {
					t.Errorf("no status of %s carried its host's load", n.Node)
				}
			}
			if out.logged("skipped") || out.logged("loopback") {
				t.Errorf("a warning about a skipped network on a healthy grid: %+v", out.logs)
			}
			eth := bytesOn(rep.Traffic, string(probe.Ethernet))
			t.Logf("Ethernet: the run counted %d bytes, the WAN link carried %d", eth, wanAfter-wanBefore)
			if wanAfter-wanBefore < eth || eth == 0 {
				t.Errorf("the run reports %d Ethernet bytes, the WAN link between the clusters carried %d", eth, wanAfter-wanBefore)
			}
		})
	}
}

// TestRunPreflightFallback unplugs a host's ib0 at the switch (the host
// still sees it up, so probing cannot tell): the pre-flight connection
// attempt must fail, the pairs of that host fall back to Ethernet with a
// warning that names it, and the run completes.
func TestRunPreflightFallback(t *testing.T) {
	g := newGridT(t, Config{HostsA: 3, HostsB: 1})
	deployOrSkip(t, g)
	ctx := context.Background()
	if err := g.Unplug(ctx, "a2", "ib0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Plug(context.Background(), "a2", "ib0") })
	out := runJob(t, g, "--nodes", "4", "--scheme", "sync", "--n", "24", "--eps", "1e-6", "--wall-time", "2m")
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" {
		t.Fatalf("run with a2's ib0 unplugged: exit %d, report %+v", out.code, rep)
	}
	a2 := g.Host("a2")
	if !out.logged(a2.Fast.String(), "unreachable", "ethernet "+a2.Ethernet.String()) {
		t.Errorf("no warning says a2's ib0 (%s) is unreachable and its pairs fall back to Ethernet; logs: %+v", a2.Fast, out.logs)
	}
	for _, n := range rep.Nodes {
		h := hostOf(t, g, n.Node)
		if h.Name == "a2" && bytesOn(n.Traffic, string(probe.Infiniband)) != 0 {
			t.Errorf("a2's ib0 is unplugged, yet it has Infiniband traffic: %+v", n.Traffic)
		}
		if (h.Name == "a1" || h.Name == "a2") && bytesOn(n.Traffic, string(probe.Ethernet)) == 0 {
			t.Errorf("%s should have fallen back to Ethernet: %+v", h.Name, n.Traffic)
		}
	}
}

// TestRunFailures breaks a host in the middle of a run — its worker killed,
// or its links taken down — and checks that the run stops by itself with a
// report that names that host, and that nothing is left running.
func TestRunFailures(t *testing.T) {
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	deployOrSkip(t, g)
	stopped := map[string]time.Duration{}
	defer func() {
		// The asynchronous run's teardown must not wait on the cut-off
		// node (rmnp's CloseTimeout, 2 s) where the synchronous one does not.
		sync, async := stopped["links down"], stopped["links down async"]
		if sync > 0 && async > sync+1500*time.Millisecond {
			t.Errorf("an asynchronous run stopped %v after its node was cut off, a synchronous one %v", async, sync)
		}
	}()
	for _, c := range []struct {
		name, host string
		breakIt    func(t *testing.T, h *Host)
		repair     func(h *Host)
		// gone: the broken host's worker must be gone too once gridtui has
		// exited (it is reachable, only hung).
		gone   bool
		scheme string // default sync
	}{
		{name: "worker killed", host: "b2", breakIt: func(t *testing.T, h *Host) { killWorker(t, g, h) }},
		{name: "worker hung", host: "b1", gone: true, breakIt: func(t *testing.T, h *Host) { signalWorker(t, g, h, "-STOP") }},
		{name: "links down", host: "a2",
			breakIt: func(t *testing.T, h *Host) {
				for _, nic := range []string{"ib0", "eth0"} {
					if err := g.LinkDown(context.Background(), h.Name, nic); err != nil {
						t.Fatal(err)
					}
				}
			},
			repair: func(h *Host) {
				g.LinkUp(context.Background(), h.Name, "eth0")
				g.LinkUp(context.Background(), h.Name, "ib0")
			}},
		// Asynchronous links hold data queued for the cut-off node: the
		// teardown must not wait on it (issue: 2 s longer than sync).
		{name: "links down async", host: "a2", scheme: "async",
			breakIt: func(t *testing.T, h *Host) {
				for _, nic := range []string{"ib0", "eth0"} {
					if err := g.LinkDown(context.Background(), h.Name, nic); err != nil {
						t.Fatal(err)
					}
				}
			},
			repair: func(h *Host) {
				g.LinkUp(context.Background(), h.Name, "eth0")
				g.LinkUp(context.Background(), h.Name, "ib0")
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := g.Host(c.host)
			if c.repair != nil {
				t.Cleanup(func() { c.repair(h) })
			}
			scheme := c.scheme
			if scheme == "" {
				scheme = "sync"
			}
			// Checkpoints off: this tests the detection; with them (the
			// default, in memory on a buddy) a lost worker is recovered.
			run := startRun(t, g, 3*time.Minute, "--nodes", "4", "--scheme", scheme, "--n", "48",
				"--eps", "1e-14", "--max-iter", "10000000", "--wall-time", "2m", "--checkpoint-every", "-1")
			run.waitIterations(t, 20, time.Minute)
			start := time.Now()
			c.breakIt(t, h)
			out := run.wait(t)
			// Heartbeats find a lost node within seconds (DESIGN.md); the
			// bound is generous for a loaded machine, and the time is logged.
			took := time.Since(start)
			t.Logf("the run stopped %v after %s", took.Round(time.Millisecond), c.name)
			stopped[c.name] = took
			if took > 90*time.Second {
				t.Errorf("the run took %v to stop after %s", took, c.name)
			}
			rep := out.report
			if out.code == 0 || rep == nil || rep.Outcome != "failed" {
				t.Fatalf("want a failed run, got exit %d, report %+v", out.code, rep)
			}
			if rep.FailedNode != h.Ethernet.String() && !strings.Contains(rep.Cause, h.Ethernet.String()) {
				t.Errorf("the report names %q (%s), want %s (%s)", rep.FailedNode, rep.Cause, h.Ethernet, h.Name)
			}
			broken := h
			if c.gone {
				broken = nil
			}
			checkNoWorkers(t, g, broken)
		})
	}
}

// signalWorker sends sig (as kill(1) spells it) to h's gridtui workers. A
// process listed that is gone by the time kill reaches it (a short-lived
// gridtui of the same user, exiting) is skipped; at least one must be
// signalled.
func signalWorker(t *testing.T, g *Grid, h *Host, sig string) {
	t.Helper()
	pids := workerPids(h)
	if len(pids) == 0 {
		t.Fatalf("%s runs no gridtui worker", h.Name)
	}
	signalled := 0
	for _, p := range pids {
		_, err := g.Exec(context.Background(), h.Name, "kill", sig, p)
		switch {
		case err == nil:
			signalled++
		case !strings.Contains(err.Error(), "No such process"):
			t.Fatal(err)
		}
	}
	if signalled == 0 {
		t.Fatalf("%s: every gridtui process listed (%v) was gone before kill %s", h.Name, pids, sig)
	}
}

// killWorker kills h's gridtui workers (SIGKILL: no chance to say goodbye).
func killWorker(t *testing.T, g *Grid, h *Host) { signalWorker(t, g, h, "-KILL") }

// workerPids lists the pids of h's user's processes named gridtui.
func workerPids(h *Host) []string {
	var out []string
	for _, p := range processesOf([]string{h.User}) {
		if strings.Contains(p, "(gridtui)") {
			out = append(out, strings.Fields(p)[0])
		}
	}
	return out
}

// checkNoWorkers waits for every host but broken to have no gridtui worker
// left; the broken host's worker may be cut off and is cleaned by deploy
// --stop --clean in the test's cleanup.
func checkNoWorkers(t *testing.T, g *Grid, broken *Host) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, h := range g.Hosts {
		if h == broken {
			continue
		}
		for len(workerPids(h)) > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if p := workerPids(h); len(p) > 0 {
			t.Errorf("%s: workers still running after the run stopped: %v", h.Name, p)
		}
	}
}

// TestRunSixteenHosts builds the largest grid (8+8 hosts), checks that a
// seventeenth host is refused, and runs a hybrid job on all sixteen.
func TestRunSixteenHosts(t *testing.T) {
	needGrid(t)
	if _, err := Up(context.Background(), Config{HostsA: 9, HostsB: 8}); err == nil || !strings.Contains(err.Error(), "9+8 hosts") {
		t.Fatalf("Up with 17 hosts: %v, want a refusal naming 9+8", err)
	}
	g := newGridT(t, Config{HostsA: 8, HostsB: 8})
	deployOrSkip(t, g)
	out := runJob(t, g, "--nodes", "16", "--scheme", "hybrid", "--n", "32", "--eps", "1e-6", "--wall-time", "2m")
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" || len(rep.Nodes) != 16 {
		t.Fatalf("16-node hybrid run: exit %d, report %+v", out.code, rep)
	}
	checkRunRoutes(t, g, rep.Routes)
}

// TestRunInterrupted interrupts a run like Ctrl-C: gridtui must stop the run
// everywhere, print an "aborted" report and exit non-zero, and no worker
// may be left on any host.
func TestRunInterrupted(t *testing.T) {
	g := newGridT(t, Config{HostsA: 1, HostsB: 2})
	deployOrSkip(t, g)
	run := startRun(t, g, 3*time.Minute, "--nodes", "3", "--scheme", "async", "--n", "48",
		"--eps", "1e-14", "--max-iter", "10000000", "--wall-time", "2m")
	run.waitIterations(t, 20, time.Minute)
	if err := run.cmd.Process.Signal(os.Interrupt); err != nil { // ip netns exec has exec'd gridtui: same pid
		t.Fatal(err)
	}
	out := run.wait(t)
	if out.code == 0 || out.report == nil || out.report.Outcome != "aborted" {
		t.Errorf("interrupted run: exit %d, report %+v; want a non-zero exit and outcome aborted", out.code, out.report)
	}
	checkNoWorkers(t, g, nil)
}
