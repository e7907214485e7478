//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// ownerDrainPolicy is ownerPolicy with a synchronous run's part drained
// after 3 s held (sync_grace).
const ownerDrainPolicy = ownerPolicy + `      sync_grace = "3s"
`

// TestOwnerSyncDrains plays the owner of one desktop during a synchronous
// run on three of the grid's four hosts: a CPU load as the owner's user
// suspends the desktop's part, which stalls the others, so after
// sync_grace its worker asks to be drained; the part moves to the free
// host (a new worker), every part restarts from the checkpoints (in memory
// on buddies), and the run ends ok, bit for bit the undisturbed run on
// the same hosts.
func TestOwnerSyncDrains(t *testing.T) {
	g, desk := ownedGridWith(t, ownerDrainPolicy)
	node := desk.Ethernet.String()
	alpha, beta := g.Cluster(clusterDefs[0].Name), g.Cluster(clusterDefs[1].Name)
	nodes := strings.Join([]string{alpha[0].Ethernet.String(), node, beta[0].Ethernet.String()}, ",")
	free := beta[1].Ethernet.String()
	args := []string{"--nodes", nodes, "--scheme", "sync", "--n", "96", "--eps", "1e-8", "--wall-time", "8m"}

	want := startRun(t, g, 10*time.Minute, args...).wait(t)
	if want.code != 0 || want.report == nil || want.report.Outcome != "ok" {
		t.Fatalf("undisturbed run: exit %d, report %+v\n%s", want.code, want.report, tail(want.raw, 40))
	}

	r := startRun(t, g, 10*time.Minute, args...)
	w := &heldWatch{t: t, r: r, node: node, iter: map[string]int{}}
	w.until("every node iterating", 3*time.Minute, func(s snapshot) bool {
		for _, n := range s.Nodes {
			if n.Iteration < 50 {
				return false
			}
		}
		return len(s.Nodes) == 3
	})
	start := time.Now()
	stop := ownerLoad(t, desk)
	defer stop()
	out := r.wait(t)
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
		t.Fatalf("run: exit %d, report %+v\n%s", out.code, rep, tail(out.raw, 40))
	}
	t.Logf("the owner came back; the run ended ok %v later", time.Since(start).Round(time.Second))
	if len(rep.Recoveries) == 0 {
		t.Fatalf("no recovery: the desktop's part was never drained\n%s", tail(out.raw, 40))
	}
	rc := rep.Recoveries[0]
	t.Logf("drained %s to %s (%s): %s", rc.Node, rc.To, rc.How, rc.Cause)
	if rc.Node != node || rc.To != free || !strings.Contains(rc.Cause, "drained on request: owner policy") || !strings.Contains(rc.Cause, "sync_grace 3s") {
		t.Errorf("recovery %+v: want %s drained by its owner policy after sync_grace to the free host %s", rc, node, free)
	}
	if !out.logged(node, "owner policy", "asked to drain") {
		t.Errorf("the run's log lacks the worker's drain request: %+v", out.logs)
	}
	for i := range rep.Nodes {
		if i < len(want.report.Nodes) && rep.Nodes[i].Iterations != want.report.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.report.Nodes[i].Iterations)
		}
	}
	if rep.Residual != want.report.Residual {
		t.Errorf("true residual %g, undisturbed %g: not bit for bit", rep.Residual, want.report.Residual)
	}
}
