//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ownerUser plays the desktop's owner: a user of its own, whose processes
// are the owner's load (owner_users), as on a lab machine.
const ownerUser = "gridtui-owner"

// ownerPolicy is the owner table of the desktop in the owner tests: the
// thresholds are HTCondor's shape on a test's clock (a busy loop of the
// owner's gets a few percent of a core on a machine loaded as this one is,
// hence loads of hundredths).
const ownerPolicy = `
      [site.cluster.host.owner]
      idle_to_start = "0s"
      idle_to_continue = "5s"
      active_idle = "5s"
      cpu_busy_for = "1s"
      owner_cpu_idle = 0.01
      owner_cpu_busy = 0.02
      owner_users = ["` + ownerUser + `"]
`

// suspendBound is how long after the owner shows up the Run view may say
// "suspended by owner": cpu_busy_for, two samples (SampleEvery: 0.5 s),
// the status's way to the console, and slack for a loaded machine.
const suspendBound = 15 * time.Second

// ownedGrid brings up a grid whose host alpha's second is a desktop with
// an owner policy (the others have none), deploys, and returns the desktop.
func ownedGrid(t *testing.T) (*Grid, *Host) {
	t.Helper()
	return ownedGridWith(t, ownerPolicy)
}

// ownedGridWith is ownedGrid with the desktop's owner table policy.
func ownedGridWith(t *testing.T, policy string) (*Grid, *Host) {
	t.Helper()
	if _, err := exec.Command("id", ownerUser).Output(); err != nil {
		if out, err := exec.Command("useradd", "-M", "-s", "/bin/sh", ownerUser).CombinedOutput(); err != nil {
			t.Skipf("useradd %s: %v: %s", ownerUser, err, out)
		}
	}
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	desk := g.Cluster(clusterDefs[0].Name)[1]
	entry := "    name = \"" + desk.Ethernet.String() + "\"\n    user = \"" + desk.User + "\"\n"
	sites := string(g.Sites())
	if !strings.Contains(sites, entry) {
		t.Fatalf("no host table of %s in the grid's sites.toml:\n%s", desk.Name, sites)
	}
	sites = strings.Replace(sites, entry, entry+policy, 1)
	if err := os.WriteFile(g.SitesFile, []byte(sites), 0o644); err != nil {
		t.Fatal(err)
	}
	deployOrSkip(t, g)
	return g, desk
}

// ownerLoad starts the owner's CPU load on host h: a busy loop as
// ownerUser in h's namespace; the returned func ends it.
func ownerLoad(t *testing.T, h *Host) func() {
	t.Helper()
	c := exec.Command("ip", "netns", "exec", h.Netns, "runuser", "-u", ownerUser, "--", "sh", "-c", "while :; do :; done")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// heldWatch follows a run's snapshots for node.
type heldWatch struct {
	t    *testing.T
	r    *liveRun
	node string
	// iter is each node's latest iteration.
	iter map[string]int
}

// until reads snapshots until ok says so or timeout, returning the time it
// took, or fails the test naming what.
func (w *heldWatch) until(what string, timeout time.Duration, ok func(s snapshot) bool) time.Duration {
	w.t.Helper()
	start := time.Now()
	deadline := time.After(timeout)
	for {
		select {
		case s := <-w.r.snaps:
			for _, n := range s.Nodes {
				w.iter[n.Node] = n.Iteration
			}
			if ok(s) {
				return time.Since(start)
			}
		case <-w.r.done:
			w.t.Fatalf("the run ended before %s:\n%s", what, tail(w.r.out.raw, 40))
		case <-deadline:
			w.t.Fatalf("%s not within %v", what, timeout)
		}
	}
}

// held reports whether node is held in s, and why.
func held(s snapshot, node string) (string, bool) {
	for _, n := range s.Nodes {
		if n.Node == node && n.Held != nil {
			return n.Held.Reason, true
		}
	}
	return "", false
}

// TestOwnerAsyncSuspend plays the owner of one desktop of the grid: while
// an asynchronous run computes, a CPU load started as the owner's user on
// that host suspends its part within the policy's bound (the worker,
// started over SSH, governs its own part there); the Run view's status
// says "suspended by owner" with the age of its halos while the other
// parts go on; when the owner leaves, the host is used again and the run
// completes below ε, its report and log saying what the policy did.
func TestOwnerAsyncSuspend(t *testing.T) { ownerLoadRun(t, "async") }

// TestOwnerSyncWaits is the same with a synchronous run: while the part is
// held, its neighbours wait for its halos (within sync_grace, one minute:
// no drain yet, TestOwnerSyncDrains), no node is taken for lost, and the
// run completes once the owner leaves.
func TestOwnerSyncWaits(t *testing.T) { ownerLoadRun(t, "sync") }

func ownerLoadRun(t *testing.T, scheme string) {
	g, desk := ownedGrid(t)
	node := desk.Ethernet.String()
	r := startRun(t, g, 10*time.Minute, "--nodes", "4", "--scheme", scheme, "--n", "96", "--eps", "1e-8", "--wall-time", "8m")
	w := &heldWatch{t: t, r: r, node: node, iter: map[string]int{}}
	w.until("every node iterating", 3*time.Minute, func(s snapshot) bool {
		for _, n := range s.Nodes {
			if n.Iteration < 50 {
				return false
			}
		}
		return len(s.Nodes) == 4
	})
	stop := ownerLoad(t, desk)
	var reason string
	took := w.until("suspended by owner", suspendBound, func(s snapshot) bool {
		var ok bool
		reason, ok = held(s, node)
		return ok
	})
	t.Logf("suspended %v after the owner's load began: %s", took, reason)
	if !strings.Contains(reason, "suspend: owner's CPU load") {
		t.Errorf("held because %q, want the owner's CPU load", reason)
	}
	heldAt := map[string]int{}
	for n, i := range w.iter {
		heldAt[n] = i
	}
	var stale float64
	w.until("the held part's halos 3 s stale", time.Minute, func(s snapshot) bool {
		for _, n := range s.Nodes {
			if n.Node == node && n.Held != nil {
				stale = n.Held.Stale
			}
		}
		return stale >= 3
	})
	if moved := w.iter[node] - heldAt[node]; moved > 1 {
		t.Errorf("the held part did %d sweeps while suspended", moved)
	}
	others := 0
	for n, i := range w.iter {
		if n != node && i > heldAt[n]+2 {
			others++
		}
	}
	switch {
	case scheme == "async" && others == 0:
		t.Errorf("no other part went on while %s was held: %v → %v", node, heldAt, w.iter)
	case scheme == "sync" && others > 0:
		t.Errorf("%d parts of a synchronous run went on without the held part's halos: %v → %v", others, heldAt, w.iter)
	}
	t.Logf("held part's halos %gs stale; iterations %v → %v", stale, heldAt, w.iter)
	stop()
	w.until("the host used again", suspendBound, func(s snapshot) bool {
		_, ok := held(s, node)
		return !ok
	})
	out := r.wait(t)
	rep := out.report
	if out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
		t.Fatalf("run: exit %d, report %+v", out.code, rep)
	}
	for _, n := range rep.Nodes {
		if n.Node == node && (n.OwnerHolds < 1 || n.OwnerHeld < 2) {
			t.Errorf("the report says %s was held %d times, %gs", node, n.OwnerHolds, n.OwnerHeld)
		}
		if n.Node != node && n.OwnerHolds != 0 {
			t.Errorf("the report says %s, which has no owner, was held", n.Node)
		}
	}
	if !out.logged(node, "owner policy", "suspend: owner's CPU load") || !out.logged(node, "owner policy", "continue:") {
		t.Errorf("the run's log lacks the owner policy's decisions: %+v", out.logs)
	}
}
