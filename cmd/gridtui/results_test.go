package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// resultsStore records successful runs of two problems with different grids
// (so their tables have different columns) and one failed run.
func resultsStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range []jobs.RunConfig{
		{App: "obstacle", N: 48, Eps: 1e-8, Scheme: jobs.Asynchronous, Nodes: 1, Cores: 1, Grid: "alpha"},
		{App: "obstacle", N: 48, Eps: 1e-8, Scheme: jobs.Asynchronous, Nodes: 4, Cores: 4, Grid: "alpha"},
		{App: "obstacle", N: 32, Eps: 1e-6, Scheme: jobs.Hybrid, Nodes: 8, Cores: 8, Grid: "alpha+beta"},
		{App: "obstacle", N: 32, Eps: 1e-6, Scheme: jobs.Synchronous, Nodes: 1, Cores: 1, Grid: "beta"},
	} {
		rec := jobs.RunRecord{Job: r, WallSeconds: 4 / float64(r.Nodes), Outcome: jobs.OutcomeOK}
		if err := jobs.Append(dir, &rec); err != nil {
			t.Fatal(err)
		}
	}
	bad := jobs.RunRecord{Job: jobs.RunConfig{App: "obstacle", N: 64, Eps: 1e-8, Scheme: jobs.Hybrid, Nodes: 2, Cores: 2, Grid: "alpha"},
		WallSeconds: 1, Outcome: "failed", Reason: "a|b, c"}
	if err := jobs.Append(dir, &bad); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runResults(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newResultsCmd()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// TestResultsCSV checks that several tables of different shapes come out
// as one valid CSV with one header and the problem on every line.
func TestResultsCSV(t *testing.T) {
	dir := resultsStore(t)
	out, err := runResults(t, "--data-dir", dir, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll() // fails on a varying field count
	if err != nil {
		t.Fatalf("not one valid CSV: %v\n%s", err, out)
	}
	if strings.Join(recs[0], ",") != "table,n,eps,cores,grid,scheme,value" {
		t.Fatalf("header %v", recs[0])
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		seen[r[0]+" "+r[1]+" "+r[2]+" "+r[3]+" "+r[4]+" "+r[5]] = true
	}
	for _, want := range []string{"time_s 48 1e-08 4 alpha async", "gain 48 1e-08 4 alpha async", "time_s 32 1e-06 8 alpha+beta hybrid", "gain 32 1e-06 1 beta sync"} {
		if !seen[want] {
			t.Errorf("no line for %q in\n%s", want, out)
		}
	}
	if seen["time_s 64 1e-08 2 alpha hybrid"] {
		t.Errorf("failed run tabulated:\n%s", out)
	}
}

// TestResultsListFormats checks that --list honours --format.
func TestResultsListFormats(t *testing.T) {
	dir := resultsStore(t)
	out, err := runResults(t, "--data-dir", dir, "--list", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 6 || recs[0][0] != "id" || recs[5][9] != "failed: a|b, c" {
		t.Fatalf("--list --format csv: %v\n%s", err, out)
	}
	out, err = runResults(t, "--data-dir", dir, "--list", "--format", "markdown")
	if err != nil || !strings.HasPrefix(out, "| id | n |") || !strings.Contains(out, `failed: a\|b, c |`) || strings.Count(out, "\n") != 7 {
		t.Fatalf("--list --format markdown: %v\n%s", err, out)
	}
}

// TestResultsNoMatch checks that a filter matching no problem is an error
// naming n and ε, unlike an empty store.
func TestResultsNoMatch(t *testing.T) {
	dir := resultsStore(t)
	_, err := runResults(t, "--data-dir", dir, "--eps", "1e-9")
	if err == nil || !strings.Contains(err.Error(), "no successful runs match ε = 1e-09") || !strings.Contains(err.Error(), "n = 48 ε = 1e-08") {
		t.Errorf("--eps 1e-9: %v", err)
	}
	_, err = runResults(t, "--data-dir", dir, "--n", "64")
	if err == nil || !strings.Contains(err.Error(), "match n = 64") {
		t.Errorf("--n 64 (failed runs only): %v", err)
	}
	out, err := runResults(t, "--data-dir", t.TempDir())
	if err != nil || !strings.Contains(out, "no successful runs recorded") {
		t.Errorf("empty store: %v %q", err, out)
	}
}
