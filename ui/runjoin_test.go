package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// TestConsoleJoin joins a free host to a real console run (worker
// processes of this binary on cluster alpha) from the Sites view, as the
// user does: J on beta-1 shows "join…", the engine starts its worker off
// the event loop, then beta-1 is a spare in the Sites view and the event
// log says it joined; a host with a part is refused, the refusal in the
// view and the event log; the run ends with its spare down.
func TestConsoleJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	m := New(Config{Inventory: inventory.Embedded(), Run: EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute}), StoreDir: t.TempDir(), NoLoad: true})
	spec := jobs.Spec{Name: "join", App: "poisson", Params: map[string]string{"n": "32", "eps": "1e-15", "blocks": "4x1x1"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Clusters: []string{"alpha"}}, Cores: 1,
		MaxIter: 1 << 30, WallTime: 3 * time.Minute}
	m = send(m, StartRunMsg{Spec: spec})
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool {
		if tick.done {
			t.Fatalf("the run ended before the join: %v", tick.err)
		}
		if tick.snap == nil || len(tick.snap.Nodes) == 0 {
			return false
		}
		for _, n := range tick.snap.Nodes {
			if n.Iteration < 10 {
				return false
			}
		}
		return true
	})
	// Sites tab, the cursor on beta-1 (site, alpha, its 4 hosts, beta).
	m = send(m, keys("1", "down", "down", "down", "down", "down", "down", "down")...)
	if r, _ := m.sites.Selected(); r.Key != "host/beta-1" {
		t.Fatalf("cursor on %q, want beta-1", r.Key)
	}
	if !strings.Contains(ansiStrip(m.render()), "J join run as spare") {
		t.Errorf("the help line does not show J:\n%s", ansiStrip(m.render()))
	}
	next, cmd := m.Update(keyPress("J"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("J on a free host of a live run asks for nothing")
	}
	req, ok := cmd().(JoinRequestMsg)
	if !ok || req.Host != "beta-1" {
		t.Fatalf("J sent %+v, want a join of beta-1", req)
	}
	next, cmd = m.Update(req)
	m = next.(Model)
	if cmd == nil || !m.sites.HostState("beta-1").Joining || !strings.Contains(m.status, "joining beta-1") {
		t.Fatalf("no join command, or beta-1 not shown joining (status %q)", m.status)
	}
	if screen := ansiStrip(m.render()); !strings.Contains(screen, "join…") {
		t.Errorf("the Sites view does not show beta-1 joining:\n%s", screen)
	}
	start := time.Now()
	m = send(m, cmd()) // Control.Join: returns once the worker is up
	t.Logf("beta-1 joined in %v", time.Since(start))
	if st := m.sites.HostState("beta-1"); st.Joining || st.Worker != WorkerSpare || !strings.Contains(m.status, "beta-1 joined") {
		t.Fatalf("beta-1 %+v, status %q: want a spare, joined", st, m.status)
	}
	// The engine's OnWorkers and log lines reach the console on its ticks.
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool {
		return len(m.spares) > 0 && logHas(m, "beta-1", "joined the job as a spare")
	})
	if st := m.sites.HostState("beta-1"); st.Worker != WorkerSpare {
		t.Errorf("beta-1 shown %v after the run's workers changed, want spare", st.Worker)
	}
	// A host that holds a part: refused, said in the view and the log.
	next, cmd = m.Update(JoinRequestMsg{Host: "alpha-2"})
	m = send(next.(Model), cmd())
	if st := m.sites.HostState("alpha-2"); st.Joining || !strings.Contains(st.JoinErr, "already holds a part") || !m.statusBad {
		t.Errorf("alpha-2 %+v, status %q: want the refusal", st, m.status)
	}
	if !logHas(m, "alpha-2", "join from the console refused") {
		t.Error("the event log does not say alpha-2's join was refused")
	}
	m = send(m, abortConfirmedMsg{})
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool { return tick.done })
	if st := m.sites.HostState("beta-1"); st.Worker != WorkerDown {
		t.Errorf("beta-1 shown %v after the run, want down", st.Worker)
	}
}

// logHas reports whether the Run view's event log has a line of node
// containing text.
func logHas(m Model, node, text string) bool {
	for _, e := range m.run.Logs() {
		if e.Node == node && strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}
