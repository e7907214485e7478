package ui

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/poisson" // the recovered application
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// TestConsoleRunRecovers kills a worker of a real console run (worker
// processes of this binary on cluster alpha, checkpoints every 25
// iterations) mid-run: the run ends ok, the event log says the loss and
// the recovery, and the node table marks the node that lost its part and
// from which checkpoint it restarted.
func TestConsoleRunRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	var mu sync.Mutex
	pids := map[string]int{}
	inner := EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute, StopTimeout: 10 * time.Second})
	run := func(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string, cb RunCallbacks) (string, error) {
		next := cb.Deploy
		cb.Deploy = func(e deploy.Event) {
			if e.Phase == deploy.PhaseReady && e.Hello != nil {
				mu.Lock()
				pids[e.Host] = e.Hello.PID
				mu.Unlock()
			}
			next(e)
		}
		return inner(ctx, spec, inv, dir, cb)
	}
	m := New(Config{Inventory: inventory.Embedded(), Run: run, StoreDir: t.TempDir(), NoLoad: true})
	spec := jobs.Spec{Name: "recover", App: "poisson", Params: map[string]string{"n": "24", "eps": "1e-7", "blocks": "4x1x1"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Clusters: []string{"alpha"}}, Cores: 1,
		MaxIter: 1 << 30, WallTime: 3 * time.Minute, Resilience: jobs.Resilience{CheckpointEvery: 25}}
	m = send(m, StartRunMsg{Spec: spec})
	killed := false
	m, end := pumpRun(t, m, func(tick runTickMsg) bool {
		if tick.done {
			return true
		}
		if killed || tick.snap == nil || len(tick.snap.Nodes) == 0 {
			return false
		}
		for _, n := range tick.snap.Nodes {
			if n.Iteration < 60 {
				return false
			}
		}
		mu.Lock()
		pid := pids["alpha-3"]
		mu.Unlock()
		if pid == 0 {
			t.Fatal("no PID for alpha-3's worker")
		}
		killed = syscall.Kill(pid, syscall.SIGKILL) == nil
		return false
	})
	if !killed || end.err != nil {
		t.Fatalf("killed %v; run error %v\n%s", killed, end.err, end.summary)
	}
	if len(end.recoveries) != 1 || end.recoveries[0].Node != "alpha-3" {
		t.Fatalf("recoveries %+v, want alpha-3's", end.recoveries)
	}
	var log strings.Builder
	for _, e := range m.run.logs {
		log.WriteString(e.Node + " " + e.Text + "\n")
	}
	if s := log.String(); !strings.Contains(s, "LOST") || !strings.Contains(s, "recovered from the loss of alpha-3") {
		t.Errorf("event log, want the loss and the recovery:\n%s", s)
	}
	note := ""
	for _, r := range m.run.list.rows {
		if r.Key == "alpha-3" {
			note = r.Cells[6]
		}
	}
	t.Logf("alpha-3: %s", note)
	if !strings.Contains(note, "restarted") || !strings.Contains(note, "from it. ") {
		t.Errorf("alpha-3's note %q, want the loss and the checkpoint it restarted from", note)
	}
	for _, n := range m.run.snap.Nodes {
		if n.State != engine.StateTerminated {
			t.Errorf("node %s ended %s", n.Node, n.State)
		}
	}
}

// TestWithRecoveries: a part moved to a spare leaves the lost node a row
// of its own, marked lost, naming the spare and the checkpoint; the spare's
// note says whose part it took. A later loss of the same node replaces its
// row.
func TestWithRecoveries(t *testing.T) {
	rows := []listRow{
		{Key: "a", Cells: []string{"a", "A ", "0", "90", "", "", ""}},
		{Key: "s", Cells: []string{"s", "A ", "1", "90", "", "", ""}},
	}
	recs := []jobs.Recovery{
		{Node: "b", Cause: "worker process exited", Rank: 1, To: "s", How: "spare", From: 75, Took: 612 * time.Millisecond},
	}
	got := withRecoveries(rows, recs)
	if len(got) != 3 || got[2].Key != "b" || got[2].Cells[1] != lostGlyph+" " || got[2].Tone != toneWarn {
		t.Fatalf("rows %+v, want b's row added, marked lost", got)
	}
	if want := "lost (worker process exited): rank 1 → s (spare), from it. 75, in 612ms"; got[2].Cells[6] != want {
		t.Errorf("b's note %q, want %q", got[2].Cells[6], want)
	}
	if want := "rank 1 from b (lost), from it. 75, in 612ms"; got[1].Cells[6] != want {
		t.Errorf("the spare's note %q, want %q", got[1].Cells[6], want)
	}
	if got[0].Cells[6] != "" {
		t.Errorf("a's note %q, want none", got[0].Cells[6])
	}
	recs = append(recs, jobs.Recovery{Node: "b", Cause: "silent", Rank: 1, To: "b", How: "new worker on its host"})
	if got := withRecoveries(rows, recs); len(got) != 3 || !strings.Contains(got[2].Cells[6], "silent") {
		t.Errorf("rows %+v, want one row for b, its latest loss", got)
	}
}

// TestConsoleDrain drains a node of a real console run from the Run view:
// D on the selected node asks for it, the run moves the node's part to a
// free host and ends ok, and the node table marks the move.
func TestConsoleDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	m := New(Config{Inventory: inventory.Embedded(), Run: EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute}), StoreDir: t.TempDir(), NoLoad: true})
	spec := jobs.Spec{Name: "drain", App: "poisson", Params: map[string]string{"n": "32", "eps": "1e-9", "blocks": "4x1x1"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Clusters: []string{"alpha"}}, Cores: 1,
		MaxIter: 1 << 30, WallTime: 3 * time.Minute, Resilience: jobs.Resilience{CheckpointEvery: 25}}
	m = send(m, StartRunMsg{Spec: spec})
	m, _ = pumpRun(t, m, func(tick runTickMsg) bool {
		if tick.done {
			t.Fatalf("the run ended before the drain: %v", tick.err)
		}
		if tick.snap == nil || len(tick.snap.Nodes) == 0 {
			return false
		}
		for _, n := range tick.snap.Nodes {
			if n.Iteration < 60 {
				return false
			}
		}
		return true
	})
	// D on the first row (rank 0) asks to drain it.
	m.run.list.cursor = 0
	next, cmd := m.run.Update(keyPress("D"))
	m.run = next
	if cmd == nil {
		t.Fatal("D on a node of the live run asks for nothing")
	}
	req, ok := cmd().(DrainRequestMsg)
	if !ok || req.Node != "alpha-1" {
		t.Fatalf("D sent %+v, want a drain of alpha-1", req)
	}
	nm, cmd := m.Update(req)
	m = nm.(Model)
	if cmd == nil {
		t.Fatalf("no drain command; status %q", m.status)
	}
	m = send(m, cmd())
	if !strings.Contains(m.status, "alpha-1 drained") {
		t.Errorf("status %q, want alpha-1 drained", m.status)
	}
	m, end := pumpRun(t, m, func(tick runTickMsg) bool { return tick.done })
	// alpha-1 coordinates the group: its members move with it (to new
	// workers on their own hosts).
	if end.err != nil || len(end.recoveries) == 0 || end.recoveries[0].Node != "alpha-1" || end.recoveries[0].To == "alpha-1" {
		t.Fatalf("run error %v, recoveries %+v: want alpha-1's part moved elsewhere", end.err, end.recoveries)
	}
	note := ""
	for _, r := range m.run.list.rows {
		if r.Key == "alpha-1" {
			note = r.Cells[6]
		}
	}
	t.Logf("alpha-1: %s", note)
	if !strings.Contains(note, "drained") || !strings.Contains(note, end.recoveries[0].To) {
		t.Errorf("alpha-1's note %q, want the drain and where its part went", note)
	}
}
