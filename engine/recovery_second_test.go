package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// hostGone makes a new worker named host fail to start on host for the
// rest of the test (the host is gone), as a restart there meets it: the
// start call fails naming the host, as deploy.StartWorkers does.
func hostGone(t *testing.T, host string) {
	t.Helper()
	start := startRecoveryWorkers
	startRecoveryWorkers = func(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, boot func(inventory.Host) deploy.Boot, opt deploy.Options) ([]*deploy.Worker, error) {
		if err := goneIn(hosts, boot, host); err != nil {
			return nil, err
		}
		return start(ctx, inv, hosts, boot, opt)
	}
	t.Cleanup(func() { startRecoveryWorkers = start })
}

// goneIn returns the error of a start call on hosts when the worker named
// gone is among them (deploy.Summary's), else nil.
func goneIn(hosts []inventory.Host, boot func(inventory.Host) deploy.Boot, gone string) error {
	var sum deploy.Summary
	for _, h := range hosts {
		r := deploy.Result{Host: h.Name, Phase: deploy.PhaseReady}
		if h.Name == hostName(gone) && boot(h).Node == gone {
			r.Phase, r.Err = deploy.PhaseFailed, errors.New("deploy: start worker "+gone+": the host is gone (test)")
		}
		sum.Results = append(sum.Results, r)
	}
	return sum.Err()
}

// TestRunRecoversSecondPart: a job with no spare whose lost node's host
// takes no new worker puts the part on a second worker of a surviving node
// of the same cluster ("alpha-1#2"), bit for bit the undisturbed run.
func TestRunRecoversSecondPart(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	hostGone(t, "alpha-3")
	rep, _, err := runKilled(t, spec, "alpha-3", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-3")
	rc := rep.Recoveries[0]
	host, _, second := strings.Cut(rc.To, secondSep)
	if !second || !strings.HasPrefix(host, "alpha-") || host == "alpha-3" || rc.How != "second part on "+host {
		t.Errorf("part moved to %s (%s), want a second part on a surviving alpha node", rc.To, rc.How)
	}
	if got := rep.Nodes[rc.Rank].Node; got != rc.To {
		t.Errorf("rank %d on %s in the report, want %s", rc.Rank, got, rc.To)
	}
}

// TestRunRecoversSecondPartAsync: the same in an asynchronous run, which
// ends ok with a true residual below ε.
func TestRunRecoversSecondPartAsync(t *testing.T) {
	hostGone(t, "beta-2")
	rep, _, err := runKilled(t, recoverySpec(jobs.Asynchronous, 24, "1e-7"), "beta-2", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
	if rc := rep.Recoveries[0]; !strings.HasPrefix(rc.To, "beta-") || !strings.Contains(rc.To, secondSep) {
		t.Errorf("part moved to %s (%s), want a second part on a surviving beta node", rc.To, rc.How)
	}
}

// TestRunRecoversSecondWorkerLost: a second worker that is lost in turn is
// restarted on the host it shares (a worker of the same name there), and
// the run is still bit for bit the undisturbed one.
func TestRunRecoversSecondWorkerLost(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	hostGone(t, "alpha-3")
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	var mu sync.Mutex
	pids, kills := map[string]int{}, 0
	trackPIDs(&opt, &mu, pids)
	// The second worker is killed on the first snapshot where it reports
	// an iteration: any from then to the end of the run, not a window of
	// it.
	second := 0
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		low, on, onIt := secondIn(s)
		switch {
		case kills == 0 && low >= 60:
			syscall.Kill(pids["alpha-3"], syscall.SIGKILL)
			kills++
		case kills == 1 && on != "" && onIt > 0 && pids[on] != 0:
			syscall.Kill(pids[on], syscall.SIGKILL)
			kills, second = kills+1, onIt
		}
	}
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if kills != 2 || moved(rep.Recoveries) != 2 {
		t.Fatalf("%d kills (second at iteration %d of %d), recoveries %+v", kills, second, want.Nodes[0].Iterations, rep.Recoveries)
	}
	var last jobs.Recovery
	for _, r := range rep.Recoveries {
		if r.How != "same nodes again" {
			last = r
		}
	}
	if !strings.Contains(last.Node, secondSep) || last.To != last.Node || last.How != "new worker on its host" {
		t.Errorf("second worker's loss: %+v, want a new worker of its name on its host", last)
	}
	checkSameFigures(t, rep, want)
	for i := range rep.Nodes {
		if rep.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
}

// TestSecondPartsNoSurvivor: a lost node whose cluster has no surviving
// node fails the recovery, naming the node and the cluster.
func TestSecondPartsNoSurvivor(t *testing.T) {
	var none []*deploy.Worker
	rc := &recoverer{inv: inventory.Embedded(), workers: &none}
	s := &submission{plan: &Plan{Ranks: []string{"alpha-1"}}}
	moved := map[string]placement{}
	_, err := rc.secondParts(context.Background(), s, []inventory.Host{{Name: "alpha-1", Cluster: "alpha"}}, moved)
	if err == nil || !strings.Contains(err.Error(), "alpha-1") || !strings.Contains(err.Error(), "cluster alpha") || len(moved) != 0 {
		t.Fatalf("err %v, moved %v: want no survivor named", err, moved)
	}
}

// TestWithHost: a second worker's name joins its host's cluster in a copy
// of the inventory; the inventory itself is unchanged.
func TestWithHost(t *testing.T) {
	inv := inventory.Embedded()
	h := inv.Hosts()[0]
	out := withHost(inv, h.Name+"#2", h)
	if n, m := len(inv.Hosts()), len(out.Hosts()); m != n+1 {
		t.Fatalf("%d hosts, want %d", m, n+1)
	}
	if slices.ContainsFunc(inv.Hosts(), func(x inventory.Host) bool { return x.Name == h.Name+"#2" }) {
		t.Error("the inventory itself changed")
	}
	i := slices.IndexFunc(out.Hosts(), func(x inventory.Host) bool { return x.Name == h.Name+"#2" })
	if i < 0 || out.Hosts()[i].Cluster != h.Cluster || hostName(out.Hosts()[i].Name) != h.Name {
		t.Errorf("second worker's host %+v, want in cluster %s", out.Hosts(), h.Cluster)
	}
}

// TestRunRecoversSecondPartCoordinator: a hybrid run whose coordinator's
// host is gone: its members, lost with it, get new workers on their own
// hosts, and the coordinator's part goes to a second worker on one of
// them (no other node of its cluster survives).
func TestRunRecoversSecondPartCoordinator(t *testing.T) {
	hostGone(t, "alpha-1")
	rep, _, err := runKilled(t, recoverySpec(jobs.Hybrid, 24, "1e-7"), "alpha-1", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || len(rep.Recoveries) != 4 || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
	for _, r := range rep.Recoveries {
		t.Log(r)
		switch {
		case r.Node == "alpha-1" && (!strings.HasPrefix(r.To, "alpha-") || hostName(r.To) == "alpha-1" || !strings.HasPrefix(r.How, "second part on ")):
			t.Errorf("coordinator's part to %s (%s), want a second part on a member's host", r.To, r.How)
		case r.Node != "alpha-1" && (r.To != r.Node || r.How != "new worker on its host"):
			t.Errorf("member %s's part to %s (%s), want a new worker on its host", r.Node, r.To, r.How)
		}
	}
}

// TestRunDrainHostWithSecondWorker: draining the host of a node that also
// runs a second worker ("alpha-1" and "alpha-1#2") drains both: the whole
// host leaves the run, each part to a free host, and the run ends ok.
func TestRunDrainHostWithSecondWorker(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9")
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	hostGone(t, "alpha-3")
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl, Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	var mu sync.Mutex
	pids, step, host := map[string]int{}, 0, ""
	drained := make(chan error, 1)
	trackPIDs(&opt, &mu, pids)
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		low, on, onIt := secondIn(s)
		switch {
		case step == 0 && low >= 60:
			syscall.Kill(pids["alpha-3"], syscall.SIGKILL)
			step++
		case step == 1 && on != "" && onIt > 0:
			step, host = 2, hostName(on)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				drained <- ctl.Drain(ctx, host, "its owner came back")
			}()
		}
	}
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if step != 2 {
		t.Fatalf("step %d: the second part was never seen iterating", step)
	}
	if err := <-drained; err != nil {
		t.Fatalf("drain %s: %v", host, err)
	}
	if rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, true residual %g (ε %g)\n%s", rep.Outcome, rep.Residual, rep.Eps, summary(rep))
	}
	for _, r := range rep.Recoveries {
		t.Log(r)
	}
	for _, n := range rep.Nodes {
		if hostName(n.Node) == host || hostName(n.Node) == "alpha-3" {
			t.Errorf("rank %d still on %s after %s was drained; recoveries %+v", n.Rank, n.Node, host, rep.Recoveries)
		}
	}
}

// secondIn returns the lowest iteration of snapshot s's nodes, and a
// second worker's ("<host>#2") node and iteration ("", 0 when none).
func secondIn(s Snapshot) (low int, on string, onIt int) {
	low = 1 << 30
	for _, st := range s.Nodes {
		low = min(low, st.Iteration)
		if strings.Contains(st.Node, secondSep) {
			on, onIt = st.Node, st.Iteration
		}
	}
	return low, on, onIt
}

// trackPIDs keeps, in pids under mu, the process id of each worker the
// run of opt starts (OnWorkers).
func trackPIDs(opt *RunOptions, mu *sync.Mutex, pids map[string]int) {
	opt.OnWorkers = func(ws []*deploy.Worker) {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range ws {
			pids[w.Host.Name] = w.Hello.PID
		}
	}
}
