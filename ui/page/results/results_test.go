package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// execResults holds one run of a program (app exec).
func execResults() *jobs.Results {
	r := uitest.Record(5, jobs.Synchronous, 2, 0.8, true)
	r.Job.Name, r.Job.App, r.Job.N = "c-poisson-sync", "exec", 0
	r.Job.Params = map[string]string{"program": "/home/me/poisson", "items": "32", "unit": "1024", "eps": "1e-08"}
	r.ResidualReported, r.Complementarity = true, nil
	return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{r}}
}

// twoInventories holds the same cluster on the embedded local grid and in
// a sites file: Tables III and IV keep them apart and say which is which.
func twoInventories() *jobs.Results {
	res := uitest.SampleResults()
	for i := range res.Records {
		res.Records[i].Job.Inventory = jobs.InventoryEmbedded
	}
	for _, r := range []jobs.RunRecord{uitest.Record(6, jobs.Synchronous, 1, 9.0, true), uitest.Record(7, jobs.Synchronous, 4, 3.0, true)} {
		r.Job.Inventory = "/grid/sites.toml"
		res.Records = append(res.Records, r)
	}
	return res
}

func TestResultsView(t *testing.T) {
	big := &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{uitest.Record(9, jobs.Asynchronous, 1024, 12.5, true)}}
	cases := []struct {
		name  string
		res   *jobs.Results
		err   error
		setup func(v *Model)
	}{
		{name: "runs", res: uitest.SampleResults()},
		{name: "table_III", res: uitest.SampleResults(), setup: func(v *Model) { v.press("t") }},
		// A problem whose every run was aborted has no row: the table
		// says why instead of showing "cores" alone.
		{name: "table_III_aborted_only", res: func() *jobs.Results {
			r := uitest.Record(8, jobs.Asynchronous, 4, 0.4, false)
			r.Job.N, r.Outcome, r.Reason = 96, "aborted", "aborted by the user"
			return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{r}}
		}(), setup: func(v *Model) { v.press("t") }},
		{name: "table_IV", res: uitest.SampleResults(), setup: func(v *Model) { v.press("t", "t") }},
		{name: "table_IV_two_inventories", res: twoInventories(), setup: func(v *Model) { v.press("t", "t") }},
		{name: "detail_inventory", res: twoInventories(), setup: func(v *Model) { v.press("enter") }},
		{name: "detail_failed", res: uitest.SampleResults(), setup: func(v *Model) { v.press("down", "enter") }},
		// An application's own checks of its solution (gridapp.Checker):
		// the detail lists each with its verdict, whatever the application.
		{name: "detail_checks", res: func() *jobs.Results {
			r := uitest.Record(6, jobs.Synchronous, 2, 0.9, true)
			r.Checks = []jobs.CheckRecord{{Name: "mass balance", Value: 2e-12, OK: true, Text: "2e-12 (≤ 1e-10)"},
				{Name: "maximum principle: min u", Value: -3e-3, OK: false}}
			return &jobs.Results{Path: "/data/gridtui/results.jsonl", Records: []jobs.RunRecord{r}}
		}(), setup: func(v *Model) { v.press("enter") }},
		{name: "empty", res: &jobs.Results{Path: "/data/gridtui/results.jsonl"}},
		{name: "error", err: errors.New("jobs: results store: open /data/gridtui/results.jsonl: permission denied")},
		{name: "corrupt", res: func() *jobs.Results {
			r := uitest.SampleResults()
			r.Corrupt = []*jobs.LineError{{Line: 3, Err: errors.New("bad json")}}
			return r
		}()},
		{name: "1024", res: big, setup: func(v *Model) { v.press("enter") }},
		// A program's run (exec) declares no n and could not measure its
		// residual: the list shows n as –, the detail calls the residual
		// what it is.
		{name: "exec", res: execResults()},
		{name: "exec_detail", res: execResults(), setup: func(v *Model) { v.press("enter") }},
	}
	for _, tc := range cases {
		for _, sz := range uitest.Sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.W, sz.H), func(t *testing.T) {
				c := uitest.Common(sz.W, sz.H)
				v := New(c, "")
				v.SetResults(tc.res, tc.err)
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

func (v *Model) press(keys ...string) {
	for _, k := range keys {
		*v, _ = v.update(uitest.KeyPress(k))
	}
}

// TestResultsExportAndLoad reads a real store written with jobs.Append and
// exports Table III as CSV and Table IV as Markdown.
func TestResultsExportAndLoad(t *testing.T) {
	dir := t.TempDir()
	for _, r := range uitest.SampleResults().Records {
		if err := jobs.Append(dir, &r); err != nil {
			t.Fatal(err)
		}
	}
	v := New(uitest.Common(80, 24), dir)
	v, _ = v.update(v.Load()())
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
	var cmd = func(keys ...string) ExportedMsg {
		var c interface{ String() string }
		_ = c
		var msg ExportedMsg
		for _, k := range keys {
			var next = v
			next, cm := v.update(uitest.KeyPress(k))
			v = next
			if cm != nil {
				msg = cm().(ExportedMsg)
			}
		}
		return msg
	}
	m := cmd("c")
	if m.Err != nil {
		t.Fatal(m.Err)
	}
	data, err := os.ReadFile(m.Path)
	if err != nil || !strings.Contains(string(data), "cores") {
		t.Fatalf("CSV %s: %v\n%s", m.Path, err, data)
	}
	m = cmd("t", "t", "m")
	if m.Err != nil || filepath.Base(m.Path) != "gridtui-table-IV-"+uitest.SampleApp+"-n48.md" {
		t.Fatalf("markdown export: %+v", m)
	}
	data, _ = os.ReadFile(m.Path)
	if !strings.Contains(string(data), "|") || !strings.Contains(string(data), "gain") {
		t.Errorf("markdown table:\n%s", data)
	}
}

// TestResultsReloadSays: R reads the store again and says how many runs it
// holds (a reload that found nothing new looked like no reload at all).
func TestResultsReloadSays(t *testing.T) {
	dir := t.TempDir()
	rec := uitest.Record(1, jobs.Synchronous, 1, 4.0, true)
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	v := New(uitest.Common(80, 24), dir)
	v, _ = v.update(v.Load()())
	v, cmd := v.update(uitest.KeyPress("R"))
	if cmd == nil {
		t.Fatal("R did not read the store")
	}
	v, _ = v.update(cmd())
	if v.message != "read again: 1 run" {
		t.Errorf("message after R: %q", v.message)
	}
}
