package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	if strings.Join(recs[0], ",") != "table,n,eps,cores,grid,scheme,value,inventory,app,params" {
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
	for _, r := range recs[1:] {
		if r[8] != "obstacle" {
			t.Errorf("line %v does not name the application", r)
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
	if err != nil || len(recs) != 6 || recs[0][0] != "id" || recs[1][1] != "obstacle" || recs[5][10] != "failed: a|b, c" {
		t.Fatalf("--list --format csv: %v\n%s", err, out)
	}
	out, err = runResults(t, "--data-dir", dir, "--list", "--format", "markdown")
	if err != nil || !strings.HasPrefix(out, "| id | app | n |") || !strings.Contains(out, `failed: a\|b, c |`) || strings.Count(out, "\n") != 7 {
		t.Fatalf("--list --format markdown: %v\n%s", err, out)
	}
}

// TestResultsListText: the text list names each run's application, and an
// empty store says it has no runs rather than printing a bare header.
func TestResultsListText(t *testing.T) {
	dir := resultsStore(t)
	rec := jobs.RunRecord{Job: jobs.RunConfig{App: "poisson", N: 32, Eps: 1e-8, Scheme: jobs.Synchronous, Nodes: 4, Cores: 4, Grid: "alpha",
		Params: map[string]string{"n": "32"}}, WallSeconds: 1, Outcome: jobs.OutcomeOK}
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	sparse := jobs.RunRecord{Job: jobs.RunConfig{App: "sparse", Eps: 1e-10, Scheme: jobs.Asynchronous, Nodes: 4, Cores: 4, Grid: "alpha",
		Params: map[string]string{"eps": "1e-10"}}, WallSeconds: 1, Outcome: jobs.OutcomeOK}
	if err := jobs.Append(dir, &sparse); err != nil {
		t.Fatal(err)
	}
	out, err := runResults(t, "--data-dir", dir, "--list")
	if err != nil || !strings.HasPrefix(out, "id ") || strings.Count(out, " obstacle ") != 5 || strings.Count(out, " poisson ") != 1 ||
		!regexp.MustCompile(`sparse +– +1e-10 `).MatchString(out) || strings.Contains(out, "warning") {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	empty := t.TempDir()
	out, err = runResults(t, "--data-dir", empty, "--list")
	if err != nil || out != "no runs recorded in "+empty+"\n" {
		t.Fatalf("--list of an empty store: %v %q", err, out)
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

// TestResultsInventoriesNotPooled: runs of the embedded local grid and of
// an SSH inventory with the same cluster names are two columns, each gain
// against its own inventory's single-node run; records written before the
// inventory was kept still read, as a third.
func TestResultsInventoriesNotPooled(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		// t1 = 10 s on the embedded grid, 40 s over SSH: pooled, the SSH
		// cell would read 10/20 = 0.50 and the embedded one 10/2 = 5.00
		// (the fastest of both in one cell).
		`{"v":1,"id":"a","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"async","nodes":1,"cores":1,"grid":"alpha","inventory":"embedded"},"wall_seconds":10,"outcome":"ok"}`,
		`{"v":1,"id":"b","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"async","nodes":4,"cores":4,"grid":"alpha","inventory":"embedded"},"wall_seconds":5,"outcome":"ok"}`,
		`{"v":1,"id":"c","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"async","nodes":1,"cores":1,"grid":"alpha","inventory":"/grid/sites.toml"},"wall_seconds":40,"outcome":"ok"}`,
		`{"v":1,"id":"d","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"async","nodes":4,"cores":4,"grid":"alpha","inventory":"/grid/sites.toml"},"wall_seconds":20,"outcome":"ok"}`,
		`{"v":1,"id":"e","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"async","nodes":4,"cores":4,"grid":"alpha"},"wall_seconds":2,"outcome":"ok"}`,
	}
	if err := os.WriteFile(filepath.Join(dir, jobs.ResultsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runResults(t, "--data-dir", dir, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		if len(r) < 8 {
			t.Fatalf("no inventory column: %v", recs[0])
		}
		got[r[0]+" "+r[3]+" "+r[7]] = r[6]
	}
	want := map[string]string{"gain 1 embedded": "1", "gain 4 embedded": "2", "gain 1 /grid/sites.toml": "1", "gain 4 /grid/sites.toml": "2",
		"time_s 4 ": "2"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("gain at %s = %q, want %s (cells %v)", k, got[k], v, got)
		}
	}
	text, err := runResults(t, "--data-dir", dir, "--table", "time")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"alpha @ embedded local grid", "alpha @ /grid/sites.toml", "alpha @ inventory not recorded"} {
		if !strings.Contains(text, w) {
			t.Errorf("Table III does not name %q:\n%s", w, text)
		}
	}
}

// TestResultsJSONNamesTheProblem: the tables of two poisson problems in
// --json carry their application and parameters, and no column label is
// empty.
func TestResultsJSONNamesTheProblem(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{16, 24} {
		for _, nodes := range []int{1, 2} {
			rec := jobs.RunRecord{Job: jobs.RunConfig{App: "poisson", N: n, Eps: 1e-8, Scheme: jobs.Synchronous, Nodes: nodes, Cores: nodes,
				Grid: "alpha", Inventory: jobs.InventoryEmbedded,
				Params: map[string]string{"n": strconv.Itoa(n), "eps": "1e-8", "blocks": "auto"}},
				WallSeconds: 1, Outcome: jobs.OutcomeOK}
			if err := jobs.Append(dir, &rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := runResults(t, "--data-dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var tables []struct {
		Table   string            `json:"table"`
		App     string            `json:"app"`
		Params  map[string]string `json:"params"`
		Columns []struct {
			Label string `json:"label"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &tables); err != nil || len(tables) != 4 {
		t.Fatalf("%v: %d tables\n%s", err, len(tables), out)
	}
	for _, tab := range tables {
		if tab.App != "poisson" || tab.Params["n"] == "" || tab.Params["blocks"] != "" {
			t.Errorf("table %s of %s %v: want poisson with n and without blocks (layout)", tab.Table, tab.App, tab.Params)
		}
		for _, c := range tab.Columns {
			if c.Label == "" {
				t.Errorf("an empty column label in\n%s", out)
			}
		}
	}
	if tables[0].Params["n"] == tables[2].Params["n"] {
		t.Errorf("the two problems read alike:\n%s", out)
	}
}
