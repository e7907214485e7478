package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// record builds a run record as the engine stores it (test input).
func record(i int, scheme jobs.Scheme, nodes int, wall float64, ok bool) jobs.RunRecord {
	r := jobs.RunRecord{
		Version: 1, ID: fmt.Sprintf("20261121T18%02d00Z-%06x", i, i), Time: t0.Add(time.Duration(i) * time.Minute),
		Job: jobs.RunConfig{Name: fmt.Sprintf("obstacle-n48-%s", scheme), App: "obstacle", N: 48, Eps: 1e-8,
			Scheme: scheme, Detector: jobs.DefaultDetector(scheme), Nodes: nodes, Cores: nodes, Grid: "alpha", Clusters: []string{"alpha"}},
		Machine:     jobs.Machine{Host: "console", OS: "linux", Arch: "amd64", Cores: 2},
		WallSeconds: wall, Outcome: jobs.OutcomeOK,
	}
	res := jobs.Float(3e-9)
	r.TrueResidual = &res
	r.Complementarity = &jobs.Complementarity{MinUMinusPhi: 0, MinAuMinusF: 1e-6, MaxProduct: 2e-4, Tol: 1e-2, OK: true}
	for k := 0; k < nodes; k++ {
		r.Nodes = append(r.Nodes, jobs.NodeRecord{Name: fmt.Sprintf("alpha-%d", k+1), Cluster: "alpha", Rank: k, Cores: 1,
			Iterations: 2000 + 10*k, Sigma: 8e-9, ComputeSeconds: wall * 0.7, SendSeconds: wall * 0.1, WaitSeconds: wall * 0.2})
	}
	if !ok {
		r.Outcome, r.Reason, r.TrueResidual, r.Complementarity = jobs.OutcomeFailed, "node alpha-2: heartbeat lost", nil, nil
	}
	return r
}

// execResults holds one run of a program (app exec).
func execResults() *jobs.Results {
	r := record(5, jobs.Synchronous, 2, 0.8, true)
	r.Job.Name, r.Job.App, r.Job.N = "c-poisson-sync", "exec", 0
	r.Job.Params = map[string]string{"program": "/home/me/poisson", "items": "32", "unit": "1024", "eps": "1e-08"}
	r.ResidualReported, r.Complementarity = true, nil
	return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{r}}
}

func sampleResults() *jobs.Results {
	return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{
		record(1, jobs.Synchronous, 1, 4.0, true),
		record(2, jobs.Synchronous, 4, 1.5, true),
		record(3, jobs.Asynchronous, 4, 1.1, true),
		record(4, jobs.Hybrid, 4, 1.3, false),
		record(5, jobs.Asynchronous, 2, 2.2, true),
	}}
}

// twoInventories holds the same cluster on the embedded local grid and in
// a sites file: Tables III and IV keep them apart and say which is which.
func twoInventories() *jobs.Results {
	res := sampleResults()
	for i := range res.Records {
		res.Records[i].Job.Inventory = jobs.InventoryEmbedded
	}
	for _, r := range []jobs.RunRecord{record(6, jobs.Synchronous, 1, 9.0, true), record(7, jobs.Synchronous, 4, 3.0, true)} {
		r.Job.Inventory = "/grid/sites.toml"
		res.Records = append(res.Records, r)
	}
	return res
}

func TestResultsView(t *testing.T) {
	big := &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{record(9, jobs.Asynchronous, 1024, 12.5, true)}}
	cases := []struct {
		name  string
		res   *jobs.Results
		err   error
		setup func(v *ResultsView)
	}{
		{name: "runs", res: sampleResults()},
		{name: "table_III", res: sampleResults(), setup: func(v *ResultsView) { v.press("t") }},
		// A problem whose every run was aborted has no row: the table
		// says why instead of showing "cores" alone.
		{name: "table_III_aborted_only", res: func() *jobs.Results {
			r := record(8, jobs.Asynchronous, 4, 0.4, false)
			r.Job.N, r.Outcome, r.Reason = 96, "aborted", "aborted by the user"
			return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{r}}
		}(), setup: func(v *ResultsView) { v.press("t") }},
		{name: "table_IV", res: sampleResults(), setup: func(v *ResultsView) { v.press("t", "t") }},
		{name: "table_IV_two_inventories", res: twoInventories(), setup: func(v *ResultsView) { v.press("t", "t") }},
		{name: "detail_inventory", res: twoInventories(), setup: func(v *ResultsView) { v.press("enter") }},
		{name: "detail_failed", res: sampleResults(), setup: func(v *ResultsView) { v.press("down", "enter") }},
		{name: "empty", res: &jobs.Results{Path: "/data/gridtui/results.jsonl"}},
		{name: "error", err: errors.New("jobs: results store: open /data/gridtui/results.jsonl: permission denied")},
		{name: "corrupt", res: func() *jobs.Results {
			r := sampleResults()
			r.Corrupt = []*jobs.LineError{{Line: 3, Err: errors.New("bad json")}}
			return r
		}()},
		{name: "1024", res: big, setup: func(v *ResultsView) { v.press("enter") }},
		// A program's run (exec) declares no n and could not measure its
		// residual: the list shows n as –, the detail calls the residual
		// what it is.
		{name: "exec", res: execResults()},
		{name: "exec_detail", res: execResults(), setup: func(v *ResultsView) { v.press("enter") }},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := NewResultsView(c, "")
				v.SetResults(tc.res, tc.err)
				if tc.setup != nil {
					tc.setup(&v)
				}
				out := v.View()
				checkSize(t, c, out)
				requireGolden(t, out)
			})
		}
	}
}

func (v *ResultsView) press(keys ...string) {
	for _, k := range keys {
		*v, _ = v.update(keyPress(k))
	}
}

// TestResultsExportAndLoad reads a real store written with jobs.Append and
// exports Table III as CSV and Table IV as Markdown.
func TestResultsExportAndLoad(t *testing.T) {
	dir := t.TempDir()
	for _, r := range sampleResults().Records {
		if err := jobs.Append(dir, &r); err != nil {
			t.Fatal(err)
		}
	}
	v := NewResultsView(testCommon(80, 24), dir)
	v, _ = v.update(v.load()())
	if v.err != nil || v.res == nil || len(v.res.Records) != 5 {
		t.Fatalf("load: err %v, records %v", v.err, v.res)
	}
	if r, _ := v.selectedRecord(); r.Job.Nodes != 2 {
		t.Errorf("first row is %+v, want the newest run (2 nodes)", r.Job)
	}
	cwd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(cwd) })
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	var cmd = func(keys ...string) exportDoneMsg {
		var c interface{ String() string }
		_ = c
		var msg exportDoneMsg
		for _, k := range keys {
			var next = v
			next, cm := v.update(keyPress(k))
			v = next
			if cm != nil {
				msg = cm().(exportDoneMsg)
			}
		}
		return msg
	}
	m := cmd("c")
	if m.err != nil {
		t.Fatal(m.err)
	}
	data, err := os.ReadFile(m.path)
	if err != nil || !strings.Contains(string(data), "cores") {
		t.Fatalf("CSV %s: %v\n%s", m.path, err, data)
	}
	m = cmd("t", "t", "m")
	if m.err != nil || filepath.Base(m.path) != "gridtui-table-IV-obstacle-n48.md" {
		t.Fatalf("markdown export: %+v", m)
	}
	data, _ = os.ReadFile(m.path)
	if !strings.Contains(string(data), "|") || !strings.Contains(string(data), "gain") {
		t.Errorf("markdown table:\n%s", data)
	}
}

// TestResultsReloadSays: R reads the store again and says how many runs it
// holds (a reload that found nothing new looked like no reload at all).
func TestResultsReloadSays(t *testing.T) {
	dir := t.TempDir()
	rec := record(1, jobs.Synchronous, 1, 4.0, true)
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	v := NewResultsView(testCommon(80, 24), dir)
	v, _ = v.update(v.load()())
	v, cmd := v.update(keyPress("R"))
	if cmd == nil {
		t.Fatal("R did not read the store")
	}
	v, _ = v.update(cmd())
	if v.message != "read again: 1 run" {
		t.Errorf("message after R: %q", v.message)
	}
}
