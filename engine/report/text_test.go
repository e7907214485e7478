package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/columns"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

func TestReportWriteText(t *testing.T) {
	spec := jobs.DefaultSpec().WithDefaults()
	ok := &Report{Spec: spec, Wall: 1500 * time.Millisecond, Outcome: "ok", Checked: true, Residual: 9.1e-9,
		FiguresOK: true, Checks: []gridapp.Check{{Name: "complementarity: max |(Au−f)(u−φ)|", Value: 1e-6, OK: true}},
		Nodes: []NodeReport{{Node: "alpha-1", Rank: 0, Coordinator: true, Part: "planes [0,24)", Cores: 1, State: solve.StateTerminated, Iterations: 1200,
			PeakRSS: 52 << 20},
			{Node: "beta-1", Rank: 1, Group: 1, Coordinator: true, Part: "planes [24,48)", Cores: 1, State: solve.StateTerminated, Iterations: 1100}},
		Routes:  []probe.Route{{A: "alpha-1", B: "beta-1", Network: probe.Ethernet}},
		Traffic: []solve.NetTraffic{{Network: "ethernet", Messages: 2400, Bytes: 3 << 20, Skipped: 7}},
		T1:      3 * time.Second, Gain: 2, RecordID: "20261121T000000Z-abcdef"}
	failed := &Report{Spec: spec, Wall: time.Second, Outcome: "failed", FailedNode: "alpha-3", Cause: "no heartbeat for 2.2s"}
	execSpec := spec
	execSpec.App = "exec"
	reported := &Report{Spec: execSpec, Wall: time.Second, Outcome: "ok", Checked: true, Residual: 8e-9, ResidualReported: true, Eps: 1e-8,
		FiguresOK: true, Nodes: ok.Nodes}
	measured := *reported
	measured.ResidualReported = false
	hostile := &Report{Spec: spec, Wall: time.Second, Outcome: "failed", FailedNode: "alpha-3",
		Cause: "exit 1: \x1b]0;pwned\x07\x1b[2J", FailedLog: []string{"panic: \u009b31m"}}
	hostile.Spec.Name = "job\x1b[31m"
	tests := map[string]struct {
		rep  *Report
		want []string
	}{
		"ok": {ok, []string{"outcome:   ok", "wall time: 1.5s", "alpha-1  0*", "1200", "peak RSS", "52.0 MiB", "true global residual: 9.100e-09",
			"planes [24,48)", "complementarity: max |(Au−f)(u−φ)|: 1e-06 ok", "application check: OK", "alpha-1↔beta-1 ethernet", "ethernet 2400 msgs 3.0 MiB (7 skipped)",
			"C_g = t1/ts = 3s / 1.5s = 2.00", "recorded as 20261121T000000Z-abcdef"}},
		"failed": {failed, []string{"outcome:   failed", "cause:     node alpha-3: no heartbeat for 2.2s",
			"not computed", "computing gain: unknown"}},
		// A program's σ is what it reported: the report does not call it
		// the true residual.
		"reported residual": {reported, []string{"residual: 8.000e-09 (ε = 1e-08), the largest σ the parts reported: not measured on the solution"}},
		"measured residual": {&measured, []string{"true global residual: 8.000e-09 (ε = 1e-08)"}},
		// A remote error, a log tail and a name reach the terminal quoted.
		"control characters": {hostile, []string{`run job\x1b[31m:`, `exit 1: \x1b]0;pwned\x07\x1b[2J`, `its log:   panic: \u009b31m`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
			if strings.ContainsAny(b.String(), "\x1b\x07\u009b") {
				t.Errorf("report carries control characters: %q", b.String())
			}
			if tc.rep.ResidualReported && strings.Contains(b.String(), "true global residual") {
				t.Errorf("a reported residual called the true one:\n%s", b.String())
			}
		})
	}
}

// TestReportJSONPeakRSS checks the JSON report (`gridtui run --json`)
// carries each node's peak RSS, and the results store's record keeps it.
func TestReportJSONPeakRSS(t *testing.T) {
	rep := &Report{Nodes: []NodeReport{{Node: "alpha-1", PeakRSS: 7 << 20}}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Nodes []struct {
			PeakRSS uint64 `json:"peak_rss_bytes"`
		}
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Nodes) != 1 || back.Nodes[0].PeakRSS != 7<<20 {
		t.Fatalf("JSON report %s: peak RSS not kept (%v)", b, err)
	}
	rec, err := json.Marshal(jobs.NodeRecord{Name: "alpha-1", PeakRSS: 7 << 20})
	if err != nil || !strings.Contains(string(rec), `"peak_rss_bytes":7340032`) {
		t.Fatalf("node record %s (%v)", rec, err)
	}
}

// TestReportCJKNodesAlign: in the report's node table, node names in
// Chinese or Korean (two terminal columns a character) keep the columns
// aligned: every row's "group" cell starts at the header's terminal column.
func TestReportCJKNodesAlign(t *testing.T) {
	rep := &Report{Spec: jobs.DefaultSpec().WithDefaults(), Wall: time.Second, Outcome: "ok",
		Nodes: []NodeReport{{Node: "東京-1", Rank: 0, Cores: 1}, {Node: "alpha-22", Rank: 1, Cores: 1}, {Node: "서울노드", Rank: 2, Cores: 1}}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	var starts []int
	for _, l := range strings.Split(b.String(), "\n") {
		if i := strings.Index(l, "group"); strings.HasPrefix(l, "rank") && i > 0 {
			starts = append(starts, columns.Width(l[:i]))
		}
		for _, n := range rep.Nodes {
			if i := strings.Index(l, n.Node); i >= 0 {
				rest := l[i+len(n.Node):]
				starts = append(starts, columns.Width(l[:i+len(n.Node)])+len(rest)-len(strings.TrimLeft(rest, " ")))
			}
		}
	}
	if len(starts) != 4 {
		t.Fatalf("starts %v:\n%s", starts, b.String())
	}
	for _, s := range starts {
		if s != starts[0] {
			t.Fatalf("the group column starts at %v:\n%s", starts, b.String())
		}
	}
}

// The report says which parts their host's owner policy held, how often
// and for how long, and nothing of the others.
func TestReportOwnerHolds(t *testing.T) {
	r := &Report{Outcome: "ok", Nodes: []NodeReport{
		{Node: "pc-1", Rank: 0},
		{Node: "pc-2", Rank: 1, OwnerHolds: 2, OwnerHeld: 14*time.Second + 300*time.Millisecond},
		{Node: "pc-3", Rank: 2, OwnerHolds: 1, OwnerHeld: 3 * time.Second},
	}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"owner policy: pc-2 suspended by its owner 2 times, 14s in all\n", "owner policy: pc-3 suspended by its owner once, 3s in all\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "pc-1 suspended") {
		t.Errorf("a part never held is named:\n%s", b.String())
	}
}
