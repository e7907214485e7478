package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
)

// fakeStarts replaces the recovery's start call for the test: it records
// every call's workers (node names) and deadline, fails (as
// deploy.StartWorkers, naming the host) for the worker named gone, after
// ctx ends when hang, and "starts" the others (workers with no process).
type fakeStarts struct {
	mu        sync.Mutex
	calls     [][]string
	deadlines []time.Time
}

func startsFaked(t *testing.T, gone string, hang bool) *fakeStarts {
	t.Helper()
	f := &fakeStarts{}
	start := startRecoveryWorkers
	startRecoveryWorkers = func(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, boot func(inventory.Host) deploy.Boot, opt deploy.Options) ([]*deploy.Worker, error) {
		var nodes []string
		for _, h := range hosts {
			nodes = append(nodes, boot(h).Node)
		}
		dl, _ := ctx.Deadline()
		f.mu.Lock()
		f.calls, f.deadlines = append(f.calls, nodes), append(f.deadlines, dl)
		f.mu.Unlock()
		if err := goneIn(hosts, boot, gone); err != nil {
			if hang {
				<-ctx.Done()
			}
			return nil, err
		}
		ws := make([]*deploy.Worker, len(hosts))
		for i, h := range hosts {
			ws[i] = &deploy.Worker{Host: h}
		}
		return ws, nil
	}
	t.Cleanup(func() { startRecoveryWorkers = start })
	return f
}

// fakeRecovery is a recoverer whose run holds alpha-1 … alpha-4 and
// beta-1 (live workers of no process), and the attempt that lost lost.
func fakeRecovery(lost ...string) (*recoverer, *submission) {
	inv := inventory.Embedded()
	var ws []*deploy.Worker
	for _, h := range inv.Hosts() {
		if !slices.Contains(lost, h.Name) && (h.Cluster == "alpha" || h.Name == "beta-1") {
			ws = append(ws, &deploy.Worker{Host: h})
		}
	}
	rc := &recoverer{inv: inv, workers: &ws}
	s := &submission{plan: &Plan{Ranks: []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1"}},
		failed: &worker.Failure{Node: lost[0], Cause: "worker process exited"}, logf: func(string, string, ...any) {}}
	return rc, s
}

func hostsNamed(inv *inventory.Inventory, names ...string) []inventory.Host {
	var out []inventory.Host
	for _, n := range names {
		out = append(out, inv.Hosts()[slices.IndexFunc(inv.Hosts(), func(h inventory.Host) bool { return h.Name == n })])
	}
	return out
}

// TestRestartOnOneCall: the lost nodes' hosts are restarted with one start
// call (one allocation on a batch site); when it fails naming a host, the
// others are started again with one call, never one call per host.
func TestRestartOnOneCall(t *testing.T) {
	f := startsFaked(t, "", false)
	rc, _ := fakeRecovery("alpha-2", "alpha-3", "alpha-4")
	started, failed, err := rc.restartOn(context.Background(), hostsNamed(rc.inv, "alpha-2", "alpha-3", "alpha-4"))
	if err != nil || len(started) != 3 || len(failed) != 0 || len(f.calls) != 1 {
		t.Fatalf("started %d, failed %v, err %v, calls %v: want 3 in one call", len(started), failed, err, f.calls)
	}
	f = startsFaked(t, "alpha-3", false)
	started, failed, err = rc.restartOn(context.Background(), hostsNamed(rc.inv, "alpha-2", "alpha-3", "alpha-4"))
	if err == nil || len(started) != 2 || len(failed) != 1 || failed[0].Name != "alpha-3" {
		t.Fatalf("started %d, failed %v, err %v: want alpha-3 failed", len(started), failed, err)
	}
	if len(f.calls) != 2 || len(f.calls[1]) != 2 || slices.Contains(f.calls[1], "alpha-3") {
		t.Errorf("calls %v, want all three, then alpha-2 and alpha-4 together", f.calls)
	}
}

// TestRestartOrSecondOneDeadline: a restart that hangs on a gone host and
// the second part after it share one deadline (recoveryStartTimeout), not
// one each.
func TestRestartOrSecondOneDeadline(t *testing.T) {
	timeout := recoveryStartTimeout
	recoveryStartTimeout = 2 * time.Second
	t.Cleanup(func() { recoveryStartTimeout = timeout })
	f := startsFaked(t, "alpha-3", true)
	rc, s := fakeRecovery("alpha-3")
	moved := map[string]placement{}
	t0 := time.Now()
	ws, err := rc.restartOrSecond(context.Background(), s, hostsNamed(rc.inv, "alpha-3"), moved, false)
	took := time.Since(t0)
	if err != nil || len(ws) != 1 || !strings.HasPrefix(moved["alpha-3"].how, "second part on ") {
		t.Fatalf("workers %d, moved %v, err %v: want a second part", len(ws), moved, err)
	}
	if len(f.calls) != 2 {
		t.Fatalf("calls %v, want the restart then the second part", f.calls)
	}
	if end := t0.Add(recoveryStartTimeout + 100*time.Millisecond); f.deadlines[1].IsZero() || f.deadlines[1].After(end) {
		t.Errorf("second part's start deadline %v after the recovery's start, want ≤ %v (one deadline)", f.deadlines[1].Sub(t0), recoveryStartTimeout)
	}
	if took > recoveryStartTimeout+500*time.Millisecond {
		t.Errorf("took %v, want ≤ %v", took, recoveryStartTimeout)
	}
}

// TestRestartShare: a node lost to silence leaves the restart on its host a
// quarter of the deadline, the rest for a second part.
func TestRestartShare(t *testing.T) {
	if a, b := restartShare(worker.SilentCause+"3s"), restartShare("worker process exited"); a >= b || b >= recoveryStartTimeout {
		t.Errorf("silent %v, exited %v (of %v): want silent < exited < all", a, b, recoveryStartTimeout)
	}
}

// TestSecondPartsSpread: two lost nodes of one cluster go to two
// different survivors (the parts placed in this recovery counted).
func TestSecondPartsSpread(t *testing.T) {
	f := startsFaked(t, "", false)
	rc, s := fakeRecovery("alpha-3", "alpha-4")
	moved := map[string]placement{}
	ws, err := rc.secondParts(context.Background(), s, hostsNamed(rc.inv, "alpha-3", "alpha-4"), moved)
	if err != nil || len(ws) != 2 {
		t.Fatalf("%d workers, err %v", len(ws), err)
	}
	a, b := hostName(moved["alpha-3"].node), hostName(moved["alpha-4"].node)
	if a == b || !strings.HasPrefix(a, "alpha-") || !strings.HasPrefix(b, "alpha-") {
		t.Errorf("moved %v: want two different alpha survivors", moved)
	}
	if len(f.calls) != 1 {
		t.Errorf("calls %v, want one start call", f.calls)
	}
}

// TestSecondPartsFailedKeepsNothing: when a second worker does not start,
// nothing of the second parts stays recorded (rc.real, the inventory's
// entries, moved).
func TestSecondPartsFailedKeepsNothing(t *testing.T) {
	f := startsFaked(t, "alpha-2#2", false)
	rc, s := fakeRecovery("alpha-3", "alpha-4")
	inv := rc.inv
	moved := map[string]placement{}
	_, err := rc.secondParts(context.Background(), s, hostsNamed(rc.inv, "alpha-3", "alpha-4"), moved)
	if err == nil || len(rc.real) != 0 || rc.inv != inv || len(moved) != 0 {
		t.Fatalf("err %v, real %v, moved %v, inventory changed %v (calls %v)", err, rc.real, moved, rc.inv != inv, f.calls)
	}
}

// TestFreeHostNotSecond: a drained node's part never goes to a second
// worker's entry of the inventory, nor to the drained node's own host.
func TestFreeHostNotSecond(t *testing.T) {
	inv := inventory.Embedded()
	var ws []*deploy.Worker
	rc := &recoverer{inv: inv, workers: &ws}
	for _, h := range inv.Hosts() {
		if h.Name != "alpha-1" {
			rc.addSecond(h.Name+"#2", h)
		}
		if h.Name != "beta-4" && h.Name != "alpha-1" {
			ws = append(ws, &deploy.Worker{Host: h})
		}
	}
	h, err := rc.freeHost(nil, []string{"alpha-2#2"}, "alpha-1#3")
	if err != nil || h.Name != "beta-4" {
		t.Fatalf("free host %q (%v), want beta-4", h.Name, err)
	}
	if h, err := rc.freeHost([]inventory.Host{h}, nil, "alpha-1#3"); err == nil {
		t.Fatalf("free host %q, want none", h.Name)
	}
}

// TestPlanSpecSecondWorker: a resume of a run that ended with a part on a
// second worker puts it on its host when free, else on a free host of the
// cluster; with none free it is refused naming the second worker.
func TestPlanSpecSecondWorker(t *testing.T) {
	inv := inventory.Embedded()
	r := &resumeState{m: &Manifest{ID: "r1", Ranks: []string{"alpha-1", "alpha-2#2", "alpha-3"}}}
	spec, err := r.planSpec(recoverySpec("", 8, "1e-3"), inv)
	if err != nil || !slices.Equal(spec.Nodes.Hosts, []string{"alpha-1", "alpha-2", "alpha-3"}) {
		t.Fatalf("hosts %v, err %v", spec.Nodes.Hosts, err)
	}
	r.m.Ranks = []string{"alpha-1", "alpha-1#2", "alpha-2", "alpha-3"}
	if spec, err = r.planSpec(spec, inv); err != nil || !slices.Equal(spec.Nodes.Hosts, []string{"alpha-1", "alpha-4", "alpha-2", "alpha-3"}) {
		t.Fatalf("hosts %v, err %v", spec.Nodes.Hosts, err)
	}
	var all []string
	for _, h := range inv.Hosts() {
		all = append(all, h.Name)
	}
	r.m.Ranks = append(all, "alpha-1#2")
	if _, err := r.planSpec(spec, inv); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), "alpha-1#2") {
		t.Fatalf("err %v, want a refusal naming alpha-1#2", err)
	}
}

// TestWithSameHost: draining a node drains the other nodes of the plan on
// its host (a second worker beside it, or the node beside a drained
// second worker); a loss that is not a drain takes only the lost node.
func TestWithSameHost(t *testing.T) {
	s := &submission{plan: &Plan{Ranks: []string{"alpha-1", "alpha-2", "alpha-1#2", "alpha-3"}},
		failed: &worker.Failure{Node: "alpha-1", Cause: drainCause + ": owner policy: back"}}
	if got := withSameHost(s, []string{"alpha-1"}); !slices.Equal(got, []string{"alpha-1", "alpha-1#2"}) {
		t.Errorf("drain alpha-1: %v, want alpha-1 and alpha-1#2", got)
	}
	s.failed.Node = "alpha-1#2"
	if got := withSameHost(s, []string{"alpha-1#2"}); !slices.Equal(got, []string{"alpha-1#2", "alpha-1"}) {
		t.Errorf("drain alpha-1#2: %v, want alpha-1#2 and alpha-1", got)
	}
	s.failed.Cause = "worker process exited"
	if got := withSameHost(s, []string{"alpha-1#2"}); !slices.Equal(got, []string{"alpha-1#2"}) {
		t.Errorf("loss of alpha-1#2: %v, want it alone", got)
	}
}
