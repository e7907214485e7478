package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/page/compose"
)

// pumpRun feeds the console the run's ticks until done returns true for
// one, or fails after a generous timeout (the machine is shared and slow);
// it returns the model and that tick.
func pumpRun(t *testing.T, m Model, done func(runTickMsg) bool) (Model, runTickMsg) {
	t.Helper()
	feed := m.feed
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		tick := feed.drain()
		m = send(m, tick)
		if done(tick) {
			return m, tick
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the run never reached the awaited state")
	return m, runTickMsg{}
}

// TestConsoleAbort aborts a real run (worker processes of this binary on
// cluster alpha, a tolerance they never reach) as the user does, and checks
// the console against the engine's own abort: the error wraps
// engine.ErrRunAborted and context.Canceled, the Run view reads "aborted"
// and shows every node aborted from the run's report.
func TestConsoleAbort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	patient := EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute})
	m := New(Config{Inventory: inventory.Embedded(), Run: patient, StoreDir: t.TempDir(), NoLoad: true})
	spec := jobs.Spec{Name: "endless", App: jobs.DefaultSpec().App, // any application: the test is about the abort Params: map[string]string{"n": "128", "eps": "1e-15"},
		Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Clusters: []string{"alpha"}}, Cores: 1,
		MaxIter: 1 << 30, WallTime: 5 * time.Minute}
	m = send(m, StartRunMsg{Spec: spec})
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool {
		if tick.done {
			t.Fatalf("the run ended before the abort: %v\n%s", tick.err, tick.summary)
		}
		if tick.snap == nil || len(tick.snap.Nodes) == 0 {
			return false
		}
		for _, n := range tick.snap.Nodes {
			if n.Iteration == 0 {
				return false
			}
		}
		return true // every node iterates
	})
	next, cmd := m.Update(keyPress("A"))
	m = send(next.(Model), cmd()) // the confirmation
	next, cmd = m.Update(keyPress("y"))
	m = send(next.(Model), cmd()) // abortConfirmedMsg: the run's context ends
	m, end := pumpRun(t, m, func(tick runTickMsg) bool { return tick.done })

	if !errors.Is(end.err, engine.ErrRunAborted) || !errors.Is(end.err, context.Canceled) || !strings.Contains(end.err.Error(), "endless") {
		t.Errorf("run error %v: want it to name the run and wrap engine.ErrRunAborted and context.Canceled", end.err)
	}
	if title := ansiStrip(m.run.TitleLine()); !strings.Contains(title, "· aborted ·") {
		t.Errorf("title %q, want the run aborted", title)
	}
	if m.status != "run aborted" {
		t.Errorf("status %q, want %q", m.status, "run aborted")
	}
	if got := ansiStrip(m.run.CountsLine()); got != "stopped, last states: ⊘ aborted 4" {
		t.Errorf("counts %q, want the 4 nodes aborted", got)
	}
	for _, n := range m.run.Snapshot().Nodes {
		if n.State != engine.StateAborted || n.Iteration == 0 {
			t.Errorf("node %s: %s after %d iterations, want aborted with its last iterations", n.Node, n.State, n.Iteration)
		}
	}
}

// gainReportRun is a RunFunc whose live estimate never got a gain (the
// single-node reference never reached the run's last σ, as happens) while
// its report has one: the report's figure is what the header shows at the
// end.
func gainReportRun(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string, cb RunCallbacks) (string, error) {
	snaps := fakeRun(4, 3, -1)
	for _, s := range snaps {
		s.Gain = 0
		cb.Snapshot(s)
	}
	rep := &engine.Report{Spec: spec, Outcome: "ok", Nodes: stoppedReport(snaps[len(snaps)-1]), Wall: 2 * time.Second,
		T1: 880 * time.Millisecond, Gain: 0.44}
	cb.Report(rep)
	return "outcome:   ok\ncomputing gain: C_g = t1/ts = 880ms / 2s = 0.44\n", nil
}

// TestRunHeaderGainFromReport: after a run the Run header's gain is the
// report's C_g, not "–" while the report beside it reads 0.44.
func TestRunHeaderGainFromReport(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), Run: gainReportRun, NoLoad: true})
	m = send(m, StartRunMsg{Spec: jobs.Spec{Name: "four", Scheme: jobs.Asynchronous}})
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool { return tick.done })
	if title := ansiStrip(m.run.TitleLine()); !strings.Contains(title, "· gain 0.44× ·") {
		t.Errorf("title %q, want the report's gain 0.44×", title)
	}
	// A run whose report has no gain reads "–", whatever the estimate said.
	m.run.Start(jobs.Spec{Name: "next"})
	m.run.ApplySnapshot(engine.Snapshot{Gain: 3})
	m.run.ApplyReport(nil, 0)
	m.run.Finish("outcome:   failed", errors.New("engine: node alpha-2 lost"))
	if title := ansiStrip(m.run.TitleLine()); !strings.Contains(title, "· gain – ·") {
		t.Errorf("title %q of a run without a gain, want –", title)
	}
}

// sshLoadRun is a RunFunc on SSH hosts: their workers' hellos and then
// their statuses carry the hosts' load averages.
func sshLoadRun(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string, cb RunCallbacks) (string, error) {
	one, two := 1.5, 2.25
	cb.Deploy(deploy.Event{Host: "n-1.lyon", Phase: deploy.PhaseReady, Hello: &deploy.Hello{Node: "n-1.lyon", Load: &one}})
	cb.Deploy(deploy.Event{Host: "n-2.lyon", Phase: deploy.PhaseReady, Hello: &deploy.Hello{Node: "n-2.lyon"}})
	time.Sleep(2 * runTick) // the hello's figure is shown before the statuses replace it
	cb.Snapshot(engine.Snapshot{Nodes: []engine.NodeStatus{{Node: "n-1.lyon", State: engine.StateActive, Load: &two},
		{Node: "n-2.lyon", Rank: 1, State: engine.StateActive}}})
	time.Sleep(2 * runTick)
	cb.Report(&engine.Report{Spec: spec, Outcome: "ok"})
	return "outcome:   ok\n", nil
}

// TestLoadOfSSHHosts: the Sites view's Load column shows an SSH host's
// load average from its worker's hello, then from its statuses; a host
// whose worker says nothing stays "–".
func TestLoadOfSSHHosts(t *testing.T) {
	inv, err := inventory.Parse("sites.toml", []byte("[[site]]\nname = \"lyon\"\n[[site.cluster]]\nname = \"n\"\nhosts = \"n-[1-2].lyon\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Inventory: inv, Run: sshLoadRun, NoLoad: true})
	m = send(m, StartRunMsg{Spec: jobs.Spec{Name: "ssh", Scheme: jobs.Asynchronous}})
	sawHello := false
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool {
		sawHello = sawHello || m.sites.HostState("n-1.lyon").Load == 1.5
		return tick.done
	})
	if !sawHello {
		t.Error("n-1.lyon never showed the load of its hello (1.50)")
	}
	if got := m.sites.HostState("n-1.lyon").Load; got != 2.25 {
		t.Errorf("n-1.lyon load %v, want 2.25 from its last status", got)
	}
	if got := m.sites.HostState("n-2.lyon").Load; got != -1 {
		t.Errorf("n-2.lyon load %v, want unknown (-1)", got)
	}
	if !strings.Contains(ansiStrip(m.sites.View()), "2.25") {
		t.Errorf("Sites view does not show 2.25:\n%s", ansiStrip(m.sites.View()))
	}
}

// TestComposeStatusAfterRun: Compose's "starting NAME" does not outlive
// the run; it says how the run ended and where its report is.
func TestComposeStatusAfterRun(t *testing.T) {
	inv := inventory.Embedded()
	m := New(Config{Inventory: inv, Run: gainReportRun, NoLoad: true})
	h, err := grid.Htable(inv)
	if err != nil {
		t.Fatal(err)
	}
	m.compose.SetHtable(h)
	m.compose.Pick(true, "alpha-1")
	m = send(m, keys("3")...)
	next, cmd := m.Update(keyPress("r"))
	m = next.(Model)
	for queue := cmdMsgs(cmd); len(queue) > 0 && m.feed == nil; queue = queue[1:] { // the start request travels as a command
		next, cmd = m.Update(queue[0])
		m = next.(Model)
		if !compose.IsPredictTick(queue[0]) {
			queue = append(queue, cmdMsgs(cmd)...)
		}
	}
	if m.feed == nil {
		t.Fatal("r did not start a run")
	}
	m, last := pumpRun(t, m, func(tick runTickMsg) bool { return tick.done })
	// The run's end reaches Compose as a message (RunEndedMsg), sent by
	// the command the last tick returned.
	_, cmd = m.Update(last)
	for _, msg := range cmdMsgs(cmd) {
		if _, ok := msg.(RunEndedMsg); ok {
			next, _ = m.Update(msg)
			m = next.(Model)
		}
	}
	if strings.Contains(m.compose.Status(), "starting") || !strings.Contains(m.compose.Status(), "finished") {
		t.Errorf("Compose status after the run %q, want how it ended", m.compose.Status())
	}
}
