package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

func fakeLogs() []engine.LogEvent {
	return []engine.LogEvent{
		{At: uitest.T0.Add(100 * time.Millisecond), Text: "pre-flight ok: 3 pairs"},
		{At: uitest.T0.Add(600 * time.Millisecond), Node: "node-2", Text: "inactive (local σ < ε)"},
		{At: uitest.T0.Add(900 * time.Millisecond), Node: "node-2", Text: "activated by node-3"},
		{At: uitest.T0.Add(1400 * time.Millisecond), Node: "node-1", Text: "termination detected"},
	}
}

// abortedReport is the report of an interrupted run of 4 nodes as
// engine.Report.WriteText prints it.
const abortedReport = `run poisson-n48-async: poisson, eps = 1e-08, n = 48, async iterations (activity detector), 4 nodes
outcome:   aborted
cause:     run: interrupted: context canceled
wall time: 812ms
rank  node    group  part                        cores  state    iterations  local σ  compute  send   wait   peak RSS
0     node-1  0*     box [0,24)×[0,24)×[0,48)    1      aborted  300         4e-04    600ms    100ms  100ms  9.1 MiB
1     node-2  0      box [0,24)×[24,48)×[0,48)   1      aborted  303         4.4e-04  600ms    100ms  100ms  9.0 MiB
2     node-3  0      box [24,48)×[0,24)×[0,48)   1      aborted  306         4.8e-04  600ms    100ms  100ms  9.2 MiB
3     node-4  0      box [24,48)×[24,48)×[0,48)  1      aborted  309         5.2e-04  600ms    100ms  100ms  9.0 MiB
(* coordinator)
true global residual: not computed (no complete solution)
computing gain: unknown (no single-node run of this problem in the results store)
`

func TestRunView(t *testing.T) {
	spec := jobs.Spec{Name: "poisson-n48-async", Scheme: jobs.Asynchronous, Detector: jobs.DetectActivity}
	cases := []struct {
		name  string
		setup func(v *Model)
	}{
		{name: "no_run"},
		{name: "live_4", setup: func(v *Model) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(4, 5, -1)[:4] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(fakeLogs()[:3]...)
		}},
		{name: "terminated_4", setup: func(v *Model) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(4, 6, -1) {
				v.ApplySnapshot(s)
			}
			v.AppendLog(fakeLogs()...)
			v.ApplyReport(nil, 2.65) // uitest.SampleReport's gain
			v.Finish(uitest.SampleReport, nil)
		}},
		{name: "full_report", setup: func(v *Model) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(4, 6, -1) {
				v.ApplySnapshot(s)
			}
			v.ApplyReport(nil, 2.65)
			v.Finish(uitest.SampleReport, nil)
			*v, _ = v.update(uitest.KeyPress("o"))
		}},
		{name: "failed_node", setup: func(v *Model) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(8, 6, 2)[:5] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(engine.LogEvent{At: uitest.T0.Add(time.Second), Node: "node-3", Text: "failed: heartbeat lost"})
			v.Finish("", fmt.Errorf("engine: node-3 (127.16.64.12): heartbeat lost"))
		}},
		{name: "aborted_4", setup: func(v *Model) {
			v.Start(spec)
			snaps := uitest.FakeRun(4, 6, -1)
			for _, s := range snaps[:3] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(fakeLogs()[:3]...)
			v.MarkAborted()
			v.ApplyReport(uitest.StoppedReport(snaps[2]), 0)
			v.Finish(abortedReport, uitest.AbortLike{Run: spec.Name, CtxErr: context.Canceled})
		}},
		{name: "failed_node_aborted", setup: func(v *Model) {
			v.Start(spec)
			snaps := uitest.FakeRun(8, 6, 2)
			for _, s := range snaps[:5] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(engine.LogEvent{At: uitest.T0.Add(time.Second), Node: "node-3", Text: "failed: heartbeat lost"})
			v.ApplyReport(uitest.StoppedReport(snaps[4]), 0)
			v.Finish("", fmt.Errorf("engine: node-3 (127.16.64.12): heartbeat lost"))
		}},
		{name: "1024", setup: func(v *Model) {
			v.Start(spec)
			for _, s := range uitest.FakeRun(1024, 8, 700)[:7] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(fakeLogs()...)
		}},
	}
	for _, tc := range cases {
		for _, sz := range uitest.Sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.W, sz.H), func(t *testing.T) {
				c := uitest.Common(sz.W, sz.H)
				v := New(c)
				if tc.setup != nil {
					tc.setup(&v)
				}
				out := v.View()
				uitest.CheckSize(t, c, out)
				uitest.RequireGolden(t, out)
			})
		}
	}
}

// TestNetTotalsCountsEachMessageOnce: two nodes exchange 10 halos of 1 KiB
// each way and a is skipped 3 times. Each node's counters hold what it sent
// and received (engine.NetTraffic), so each reports 20 messages; the network
// carried 20 messages and 20 KiB, as the run report says, not 40.
func TestNetTotalsCountsEachMessageOnce(t *testing.T) {
	nodes := []engine.NodeStatus{
		{Node: "a", Traffic: []engine.NetTraffic{{Network: "ethernet", Messages: 20, Bytes: 20 << 10, Skipped: 3}}},
		{Node: "b", Traffic: []engine.NetTraffic{{Network: "ethernet", Messages: 20, Bytes: 20 << 10}}},
	}
	got := netTotals(nodes)
	want := []engine.NetTraffic{{Network: "ethernet", Messages: 20, Bytes: 20 << 10, Skipped: 3}}
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("netTotals = %+v, want %+v", got, want)
	}
	c := uitest.Common(80, 24)
	v := New(c)
	v.Start(jobs.Spec{Name: "x", Scheme: jobs.Asynchronous})
	v.ApplySnapshot(engine.Snapshot{Nodes: nodes})
	if line := ansi.Strip(strings.Join(v.traffic(80, 1), "")); !strings.Contains(line, "ethernet 20.0 KiB (20 msg)") {
		t.Errorf("traffic line %q, want ethernet 20.0 KiB (20 msg)", line)
	}
}

// TestCountsAfterFailedRun: once a run has failed or been aborted, the
// nodes it left Active are not shown as if they still computed.
func TestCountsAfterFailedRun(t *testing.T) {
	v := New(uitest.Common(80, 24))
	v.Start(jobs.Spec{Name: "x", Scheme: jobs.Synchronous})
	v.ApplySnapshot(uitest.FakeRun(4, 3, -1)[0])
	if got := ansi.Strip(v.countsLine()); strings.HasPrefix(got, "stopped") {
		t.Errorf("live run counts %q say stopped", got)
	}
	v.MarkAborted()
	v.Finish("outcome:   aborted", errors.New("engine: run failed: interrupted: context canceled"))
	if got := ansi.Strip(v.countsLine()); !strings.HasPrefix(got, "stopped, last states: A active") {
		t.Errorf("counts after the abort %q, want them marked as the last states of stopped workers", got)
	}
	// A run that ended well has every node Terminated: no prefix.
	w := New(uitest.Common(80, 24))
	w.Start(jobs.Spec{Name: "y", Scheme: jobs.Synchronous})
	snaps := uitest.FakeRun(4, 3, -1)
	w.ApplySnapshot(snaps[len(snaps)-1])
	w.Finish(uitest.SampleReport, nil)
	if got := ansi.Strip(w.countsLine()); strings.HasPrefix(got, "stopped") {
		t.Errorf("counts of a finished run %q", got)
	}
}

// TestAbortedNodes: the nodes a stopped run's report reads aborted show as
// aborted in the counts, the grid and the node list, whoever stopped the
// run; the run's history stays as the snapshots left it.
func TestAbortedNodes(t *testing.T) {
	snaps := uitest.FakeRun(4, 6, -1)
	for _, byUser := range []bool{true, false} {
		v := New(uitest.Common(80, 24))
		v.Start(jobs.Spec{Name: "x", Scheme: jobs.Asynchronous})
		for _, s := range snaps[:3] {
			v.ApplySnapshot(s)
		}
		hist, spark := len(v.history), slices.Clone(v.nodeHist["node-2"])
		if byUser {
			v.MarkAborted()
		}
		v.ApplyReport(uitest.StoppedReport(snaps[2]), 0)
		v.Finish(abortedReport, uitest.AbortLike{Run: "x", CtxErr: context.Canceled})
		if got := ansi.Strip(v.countsLine()); got != "stopped, last states: ⊘ aborted 4" {
			t.Errorf("by user %v: counts %q, want the 4 nodes aborted", byUser, got)
		}
		if title := ansi.Strip(v.titleLine()); !strings.Contains(title, "· aborted ·") {
			t.Errorf("by user %v: title %q, want the run aborted", byUser, title)
		}
		want := "run aborted by the user"
		if !byUser {
			want = "engine: run x aborted: interrupted: context canceled"
		}
		if first, _, _ := strings.Cut(v.outcome, "\n"); first != want {
			t.Errorf("by user %v: first outcome line %q, want %q", byUser, first, want)
		}
		if grid := ansi.Strip(strings.Join(v.grid(80, 1), "")); grid != " ⊘ ⊘ ⊘ ⊘ " {
			t.Errorf("by user %v: grid %q, want four aborted nodes", byUser, grid)
		}
		for _, r := range v.list.Rows() {
			if r.Cells[1] != "⊘ " || r.Tone != toneWarn {
				t.Errorf("by user %v: row %s state cell %q tone %d, want aborted", byUser, r.Key, r.Cells[1], r.Tone)
			}
		}
		if len(v.history) != hist || !slices.Equal(v.nodeHist["node-2"], spark) {
			t.Errorf("by user %v: the report changed the history (%d samples, was %d) or a sparkline", byUser, len(v.history), hist)
		}
		if v.snap.Nodes[1].Iteration != snaps[2].Nodes[1].Iteration {
			t.Errorf("by user %v: node-2 iteration %d, want the last reported %d", byUser, v.snap.Nodes[1].Iteration, snaps[2].Nodes[1].Iteration)
		}
	}
	// A run stopped before its first snapshot: the report's nodes are shown.
	v := New(uitest.Common(80, 24))
	v.Start(jobs.Spec{Name: "early", Scheme: jobs.Synchronous})
	v.ApplyReport(uitest.StoppedReport(snaps[0]), 0)
	v.Finish("", uitest.AbortLike{Run: "early", CtxErr: context.DeadlineExceeded})
	if got := ansi.Strip(v.countsLine()); got != "stopped, last states: ⊘ aborted 4" || len(v.list.Rows()) != 4 {
		t.Errorf("counts %q with %d rows, want the report's 4 aborted nodes", got, len(v.list.Rows()))
	}
	// A live run's counts are the legend: no aborted entry until one is.
	w := New(uitest.Common(80, 24))
	w.Start(jobs.Spec{Name: "live", Scheme: jobs.Synchronous})
	w.ApplySnapshot(snaps[0])
	if got := ansi.Strip(w.countsLine()); strings.Contains(got, "aborted") || !strings.Contains(got, "· starting 0") {
		t.Errorf("live counts %q, want every state but aborted", got)
	}
}

// TestTrafficBarsFit: the traffic lines of the wide layout show their skip
// count whole, whatever its length.
func TestTrafficBarsFit(t *testing.T) {
	for _, skipped := range []uint64{7, 8005, 19999, 2_500_000} {
		v := New(uitest.Common(160, 48))
		v.Start(jobs.Spec{Name: "x", Scheme: jobs.Asynchronous})
		v.ApplySnapshot(engine.Snapshot{Nodes: []engine.NodeStatus{{Node: "a", Traffic: []engine.NetTraffic{
			{Network: "infiniband", Messages: 9292, Bytes: 112 << 20, Skipped: skipped},
			{Network: "ethernet", Messages: 100, Bytes: 1 << 20},
		}}}})
		for _, w := range []int{60, 71, 100} {
			for _, l := range v.traffic(w, 4) {
				if got := cellWidth(ansi.Strip(l)); got > w {
					t.Errorf("skipped %d, width %d: line %q is %d cells", skipped, w, ansi.Strip(l), got)
				}
			}
			if l := ansi.Strip(v.traffic(w, 4)[1]); !strings.HasSuffix(l, countText(skipped)+" skipped") {
				t.Errorf("skipped %d, width %d: line %q does not end with the skip count", skipped, w, l)
			}
		}
	}
}

// TestRunViewAggregates checks the numbers the view derives: traffic per
// network summed over nodes, state counts, and that history stays bounded.
func TestRunViewAggregates(t *testing.T) {
	c := uitest.Common(160, 48)
	v := New(c)
	v.Start(jobs.Spec{Name: "x", Scheme: jobs.Hybrid})
	snaps := uitest.FakeRun(3, 2, -1)
	v.ApplySnapshot(snaps[0])
	tot := netTotals(v.snap.Nodes)
	if len(tot) != 2 || tot[0].Network != "ethernet" || tot[1].Network != "infiniband" {
		t.Fatalf("totals %+v, want ethernet then infiniband", tot)
	}
	var wantIB uint64
	for _, n := range snaps[0].Nodes {
		wantIB += n.Traffic[0].Bytes
	}
	if tot[1].Bytes != wantIB/2 {
		t.Errorf("infiniband bytes %d, want half the nodes' sum %d (each message counted at both ends)", tot[1].Bytes, wantIB/2)
	}
	if got := v.countsLine(); !strings.Contains(ansi.Strip(got), "A active 2") || !strings.Contains(ansi.Strip(got), "i inactive 1") {
		t.Errorf("counts line %q, want 2 active and 1 inactive", ansi.Strip(got))
	}
	for i := 0; i < 3*maxHistory; i++ {
		s := snaps[1]
		s.Elapsed = time.Duration(i) * time.Millisecond
		v.ApplySnapshot(s)
	}
	if len(v.history) > maxHistory || v.history[len(v.history)-1].At != time.Duration(3*maxHistory-1)*time.Millisecond {
		t.Errorf("history len %d (max %d), last %v", len(v.history), maxHistory, v.history[len(v.history)-1].At)
	}
	if h := v.nodeHist["node-1"]; len(h) != sparkLen {
		t.Errorf("sparkline history %d, want %d", len(h), sparkLen)
	}
	v.AppendLog(make([]engine.LogEvent, 2*maxLog)...)
	if len(v.logs) != maxLog {
		t.Errorf("log kept %d events, want %d", len(v.logs), maxLog)
	}
}

func TestFormats(t *testing.T) {
	if got := clock(83*time.Second + 400*time.Millisecond); got != "01:23.4" {
		t.Errorf("clock = %q", got)
	}
	if got := bytesText(3 << 20); got != "3.0 MiB" {
		t.Errorf("bytesText = %q", got)
	}
}

// BenchmarkRunView1024 measures a frame of the Run view with 1024 nodes
// (View alone, and a telemetry snapshot applied then a frame), next to the
// same with 4 nodes as the baseline: rendering only what is visible should
// make the two close.
func BenchmarkRunView1024(b *testing.B) {
	for _, n := range []int{4, 1024} {
		snaps := uitest.FakeRun(n, 8, n*2/3)
		for _, sz := range uitest.Sizes {
			c := uitest.Common(sz.W, sz.H)
			v := New(c)
			v.Start(jobs.Spec{Name: "bench", Scheme: jobs.Asynchronous})
			for _, s := range snaps[:7] {
				v.ApplySnapshot(s)
			}
			v.AppendLog(fakeLogs()...)
			b.Run(fmt.Sprintf("View/nodes=%d/%dx%d", n, sz.W, sz.H), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = v.View()
				}
			})
			b.Run(fmt.Sprintf("SnapshotAndView/nodes=%d/%dx%d", n, sz.W, sz.H), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					v.ApplySnapshot(snaps[i%len(snaps)])
					_ = v.View()
					i++
				}
			})
		}
	}
}

// TestKeyLinesPrediction: the Run view's summary keeps the report's
// prediction beside its outcome and wall time, and drops the rest.
func TestKeyLinesPrediction(t *testing.T) {
	report := "outcome: ok\nwall time: 1.2s\nnodes: 8\npredicted: 1.1s and 600 iterations per node (from 3 traced runs); measured 1.2s and 610 (the prediction 8 % short)\n"
	want := "outcome: ok\nwall time: 1.2s\npredicted: 1.1s and 600 iterations per node (from 3 traced runs); measured 1.2s and 610 (the prediction 8 % short)"
	if got := keyLines(report); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestReportTrafficAfterShortRun: a run that ended before a snapshot
// carried its traffic shows the report's, not "none yet".
func TestReportTrafficAfterShortRun(t *testing.T) {
	c := uitest.Common(160, 48)
	v := New(c)
	v.ApplySnapshot(engine.Snapshot{Nodes: []engine.NodeStatus{{Node: "alpha-1"}, {Node: "alpha-2", Rank: 1}}})
	v.ApplyReport([]engine.NodeReport{
		{Node: "alpha-1", State: engine.StateTerminated, Traffic: []engine.NetTraffic{{Network: "infiniband", Messages: 10, Bytes: 4096}}},
		{Node: "alpha-2", Rank: 1, State: engine.StateTerminated, Traffic: []engine.NetTraffic{{Network: "infiniband", Messages: 10, Bytes: 4096}}},
	}, 0)
	if got := strings.Join(v.traffic(80, 1), "\n"); strings.Contains(got, "none yet") || !strings.Contains(got, "infiniband") {
		t.Errorf("traffic after the report: %q", got)
	}
}

// A part its host's owner policy holds reads "suspended by owner" with the
// age of its halos and the decision, in the warning tone.
func TestNodeRowHeldByOwner(t *testing.T) {
	n := engine.NodeStatus{Node: "pc-2", Rank: 1, State: engine.StateActive, Iteration: 40,
		Held: &engine.OwnerHold{Reason: "suspend: owner's CPU load 0.70 ≥ owner_cpu_busy 0.50 for 2m0s", Stale: 12 * time.Second}}
	r := nodeRow(&n, nil)
	want := "suspended by owner, halos 12s stale: suspend: owner's CPU load 0.70"
	if !strings.HasPrefix(r.Cells[6], want) || r.Tone != toneWarn {
		t.Errorf("row %q (tone %v), want %q in the warning tone", r.Cells[6], r.Tone, want)
	}
	n.Held = nil
	if r := nodeRow(&n, nil); r.Cells[6] != "" {
		t.Errorf("row of a running part: %q", r.Cells[6])
	}
}
