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
