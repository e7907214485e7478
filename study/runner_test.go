package study

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/gridtui/gridtui/apps/obstacle" // the study's application
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

func TestPlanOrderAndHosts(t *testing.T) {
	m := DefaultMatrix()
	m.Repeats = 1
	runs, skips, err := Plan(m, inventory.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	// Per size: 2 singles, alpha 2 and 4 nodes × 2 schemes, alpha+beta 2, 4, 8 × 3.
	if want := 2 * (2 + 4 + 9); len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	if len(skips) != 2 || skips[0].Grid != "alpha" || skips[0].Nodes != 8 || !strings.Contains(skips[0].Reason, "4 hosts") {
		t.Errorf("skips = %+v, want alpha × 8 nodes for each size (alpha has 4 hosts)", skips)
	}
	for i, r := range runs {
		if r.Index != i {
			t.Errorf("run %d has index %d", i, r.Index)
		}
		if err := r.Spec.Validate(); err != nil {
			t.Errorf("run %s: %v", r.Spec.Name, err)
		}
	}
	for _, size := range []int{0, 15} { // each size starts with its single-node runs
		for _, r := range runs[size : size+2] {
			if !r.Single || !slices.Equal(r.Spec.Nodes.Hosts, []string{"alpha-1"}) || r.Spec.Cores != 1 || r.Spec.Scheme != jobs.Synchronous {
				t.Errorf("run %d = %+v, want the single-node sync run on alpha-1", r.Index, r.Spec)
			}
		}
	}
	if runs[0].Spec.Params["n"] != "48" || runs[15].Spec.Params["n"] != "64" {
		t.Errorf("sizes out of order: %s then %s", runs[0].Spec.Params["n"], runs[15].Spec.Params["n"])
	}
	byName := map[string]Run{}
	for _, r := range runs {
		byName[r.Spec.Name] = r
	}
	r, ok := byName["quick-n64-alpha_beta-4x1-hybrid"]
	if !ok || r.Grid != "alpha+beta" || !slices.Equal(r.Spec.Nodes.Hosts, []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}) {
		t.Errorf("4-node alpha+beta run = %+v (found %v), want two hosts of each cluster, alpha first", r, ok)
	}
}

func TestPlanUnknownCluster(t *testing.T) {
	m := DefaultMatrix()
	m.Grids = append(m.Grids, GridConfig{Clusters: []string{"gamma"}, Schemes: m.Schemes})
	_, _, err := Plan(m, inventory.Embedded())
	if !errors.Is(err, ErrInventory) || !strings.Contains(err.Error(), `"gamma"`) {
		t.Errorf("err = %v, want ErrInventory naming gamma", err)
	}
}

// fakeTimes gives each configuration a wall time: t1 = 12 s; on k nodes
// sync takes 12/k·1.5, hybrid 12/k·1.2 and async 12/k on alpha+beta.
func fakeWall(spec jobs.Spec) float64 {
	k := float64(len(spec.Nodes.Hosts))
	if k == 1 {
		return 12
	}
	f := map[jobs.Scheme]float64{jobs.Synchronous: 1.5, jobs.Hybrid: 1.2, jobs.Asynchronous: 1}[spec.Scheme]
	if strings.Contains(spec.Name, "-alpha-") && spec.Scheme == jobs.Asynchronous {
		f = 2 // async loses on one cluster: the ordering check must say so
	}
	n, _ := strconv.Atoi(spec.Params["n"])
	return 12 / k * f * float64(n) / 48
}

// fakeExec records a run in the store as engine.Run would, with fakeWall's
// time; the 4-node alpha+beta sync run of n=64 fails.
func fakeExec(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string) (Done, error) {
	rec := &jobs.RunRecord{Job: jobs.RunConfig{Name: spec.Name, App: "obstacle", N: specN(spec), Eps: specEps(spec),
		Scheme: spec.Scheme, Nodes: len(spec.Nodes.Hosts), Cores: len(spec.Nodes.Hosts) * spec.Cores},
		WallSeconds: fakeWall(spec), Outcome: jobs.OutcomeOK}
	var clusters []string
	for i, h := range spec.Nodes.Hosts {
		c, _, _ := strings.Cut(h, "-")
		clusters = append(clusters, c)
		rec.Nodes = append(rec.Nodes, jobs.NodeRecord{Name: h, Cluster: c, Rank: i, Cores: spec.Cores, Iterations: 100 + i,
			Stats: map[string]float64{"bytes.infiniband": 1000, "bytes.ethernet": 10}})
	}
	rec.Job.Grid = jobs.GridLabel(clusters)
	var err error
	if spec.Name == "quick-n64-alpha_beta-4x1-sync" {
		rec.Outcome, rec.Reason = jobs.OutcomeFailed, "node beta-1 lost"
		err = errors.New("engine: node beta-1 lost")
	}
	if aerr := jobs.Append(dir, rec); aerr != nil {
		return Done{}, aerr
	}
	return Done{RecordID: rec.ID, Outcome: rec.Outcome, Wall: rec.Wall()}, err
}

// quickOnce is the default study with one run per configuration.
func quickOnce() Matrix {
	m := DefaultMatrix()
	m.Repeats = 1
	return m
}

func runFake(t *testing.T) *Result {
	t.Helper()
	dir := t.TempDir()
	// An older run of the same problem must not leak into the study's tables.
	old := &jobs.RunRecord{Job: jobs.RunConfig{App: "obstacle", N: 48, Eps: 1e-6, Scheme: jobs.Synchronous, Nodes: 1, Cores: 1, Grid: "alpha"},
		WallSeconds: 1, Outcome: jobs.OutcomeOK}
	if err := jobs.Append(dir, old); err != nil {
		t.Fatal(err)
	}
	var started, done int
	res, err := Execute(context.Background(), quickOnce(), Options{Inventory: inventory.Embedded(), StoreDir: dir, Exec: fakeExec,
		OnStart: func(Run, int) { started++ }, OnDone: func(Done, int) { done++ }})
	if err != nil {
		t.Fatal(err)
	}
	if started != 30 || done != 30 || len(res.Runs) != 30 || len(res.Records) != 30 {
		t.Fatalf("started %d, done %d, runs %d, records %d; want 30 each", started, done, len(res.Runs), len(res.Records))
	}
	return res
}

func TestExecuteTablesFromRecords(t *testing.T) {
	res := runFake(t)
	if got := res.Sizes(); !slices.Equal(got, []int{48, 64}) {
		t.Errorf("Sizes = %v", got)
	}
	times, gains := res.Tables(48)
	if len(times.Columns) != 5 || len(times.Rows) != 4 {
		t.Fatalf("Table III has %d columns × %d rows, want 5 × 4 (1, 2, 4, 8 cores):\n%s", len(times.Columns), len(times.Rows), times.Text())
	}
	cell := func(tb jobs.Table, cores int, grid string, s jobs.Scheme) float64 {
		for _, r := range tb.Rows {
			for i, c := range tb.Columns {
				if r.Cores == cores && c.Grid == grid && c.Scheme == s {
					return r.Cells[i]
				}
			}
		}
		t.Fatalf("no cell %d %s %s", cores, grid, s)
		return 0
	}
	if v := cell(times, 1, "alpha", jobs.Synchronous); v != 12 {
		t.Errorf("t1 cell = %v, want 12 (the old 1 s run is not the study's)", v)
	}
	if v := cell(gains, 8, "alpha+beta", jobs.Asynchronous); math.Abs(v-8) > 1e-9 {
		t.Errorf("gain alpha+beta async 8 cores = %v, want 8", v)
	}
	if v := cell(gains, 4, "alpha", jobs.Synchronous); math.Abs(v-4/1.5) > 1e-9 {
		t.Errorf("gain alpha sync 4 cores = %v, want %v", v, 4/1.5)
	}
	if v := cell(times, 8, "alpha", jobs.Synchronous); !math.IsNaN(v) {
		t.Errorf("skipped alpha × 8 cell = %v, want NaN (\"-\")", v)
	}
	_, g64 := res.Tables(64)
	if v := cell(g64, 4, "alpha+beta", jobs.Synchronous); !math.IsNaN(v) {
		t.Errorf("failed run's cell = %v, want NaN", v)
	}
	if f := res.Failed(); len(f) != 1 || f[0].Run.Spec.Name != "quick-n64-alpha_beta-4x1-sync" {
		t.Errorf("Failed = %+v", f)
	}
}

func TestCheckOrdering(t *testing.T) {
	res := runFake(t)
	_, gains := res.Tables(48)
	checks := CheckOrdering(gains)
	// 2 and 4 cores on alpha, 2, 4 and 8 on alpha+beta.
	if len(checks) != 5 {
		t.Fatalf("%d checks, want 5: %v", len(checks), checks)
	}
	for _, c := range checks {
		want := c.MultiCluster() // async loses on alpha alone in fakeWall
		if c.Holds != want {
			t.Errorf("%s: Holds = %v, want %v", c, c.Holds, want)
		}
	}
	v := Verdict(checks)
	if !strings.Contains(v, "holds in 3 of 3 multi-cluster") || !strings.Contains(v, "0 of 2 single-cluster") {
		t.Errorf("Verdict = %q", v)
	}
	_, g64 := res.Tables(64)
	for _, c := range CheckOrdering(g64) {
		if c.Cores == 4 && c.Grid == "alpha+beta" && (c.Compared != 2 || !math.IsNaN(c.Sync)) {
			t.Errorf("check with the failed sync run = %+v, want async and hybrid only", c)
		}
	}
}

func TestExecuteStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	exec := func(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string) (Done, error) {
		if n++; n == 3 {
			cancel()
		}
		return fakeExec(ctx, spec, inv, dir)
	}
	res, err := Execute(ctx, quickOnce(), Options{Inventory: inventory.Embedded(), StoreDir: t.TempDir(), Exec: exec})
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Runs) != 3 || len(res.Records) != 3 {
		t.Fatalf("err = %v, runs %v; want context.Canceled after 3 runs with their records", err, res)
	}
}

func TestWriteDir(t *testing.T) {
	res := runFake(t)
	dir := filepath.Join(t.TempDir(), "out")
	paths, err := res.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2*(6+2)+2 {
		t.Errorf("%d files written, want 18: %v", len(paths), paths)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	svg := read("gain-n64.svg")
	if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("</svg>")) {
		t.Errorf("gain-n64.svg is not an SVG document: %.80q", svg)
	}
	if png := read("gain-n48.png"); !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("gain-n48.png has no PNG signature: %.16q", png)
	}
	if md := string(read("tableIV-n48.md")); !strings.Contains(md, "| 8 | - | - | 5.33 | 8.00 | 6.67 |") {
		t.Errorf("tableIV-n48.md lacks the 8-core row:\n%s", md)
	}
	runs := strings.Split(strings.TrimSpace(string(read("runs.csv"))), "\n")
	if len(runs) != 31 || !strings.Contains(runs[len(runs)-1], "ethernet=80 infiniband=8000") {
		t.Errorf("runs.csv: %d lines, last %q", len(runs), runs[len(runs)-1])
	}
	sum := string(read("summary.md"))
	for _, want := range []string{"# Study quick", "## n = 64", "![gain n=64](gain-n64.svg)", "**Verdict:**",
		"skipped: n=48, alpha, 8 nodes", "failed: quick-n64-alpha_beta-4x1-sync: failed: engine: node beta-1 lost"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	var text bytes.Buffer
	if err := res.WriteText(&text, 60); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Computing gain C_g") || !strings.Contains(text.String(), "30 runs in") {
		t.Errorf("WriteText:\n%s", text.String())
	}
	if err := WriteGainPlot(&bytes.Buffer{}, jobs.Table{}, "gif"); err == nil {
		t.Error("WriteGainPlot accepted format gif")
	}
}

// specN is the job's n.
func specN(spec jobs.Spec) int {
	n, _ := strconv.Atoi(spec.Params["n"])
	return n
}

// specEps is the job's ε.
func specEps(spec jobs.Spec) float64 {
	e, _ := strconv.ParseFloat(spec.Params["eps"], 64)
	return e
}
