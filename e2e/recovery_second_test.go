//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunRecoversSecondPartHost cuts off a host of a run over SSH that
// has no spare: the host takes no new worker, so a surviving host of the
// same cluster takes its part as a second part ("<host>#2", a second worker
// process there), and the run ends ok with a true residual below ε.
func TestRunRecoversSecondPartHost(t *testing.T) {
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	deployOrSkip(t, g)
	const eps = 1e-9
	run := startRun(t, g, 4*time.Minute, "--nodes", "4", "--scheme", "sync", "--n", "40",
		"--eps", fmt.Sprint(eps), "--wall-time", "3m", "--checkpoint-every", "20")
	run.waitIterations(t, 80, time.Minute)
	var victim *Host
	for _, h := range g.Hosts {
		if !coordinatesOthers(run, h) {
			victim = h
			break
		}
	}
	if victim == nil {
		t.Fatal("every host coordinates others")
	}
	c := losses[slices.IndexFunc(losses, func(c lossCase) bool { return c.name == "host cut off" })]
	t.Cleanup(func() { c.repair(g, victim) })
	t.Logf("cutting off %s (%s), no spare", victim.Name, victim.Ethernet)
	c.breakIt(t, g, victim)
	out := run.wait(t)
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < eps) {
		logWorkerTails(t, g, 80)
		t.Fatalf("exit %d, want ok with a true residual below %g; report %+v", out.code, eps, rep)
	}
	second := false
	for _, r := range rep.Recoveries {
		t.Logf("recovery: %s (%s) rank %d → %s (%s) in %.2fs", r.Node, r.Cause, r.Rank, r.To, r.How, r.Seconds)
		host, _, ok := strings.Cut(r.To, "#")
		if r.Node == victim.Ethernet.String() && ok && host != r.Node && strings.HasPrefix(r.How, "second part on ") &&
			hostOf(t, g, host).Cluster == victim.Cluster {
			second = true
		}
	}
	if !second {
		t.Errorf("no recovery put %s's part on a second worker of its cluster %s: %+v", victim.Ethernet, victim.Cluster, rep.Recoveries)
	}
	c.repair(g, victim)
	checkNoWorkers(t, g, nil)
}
