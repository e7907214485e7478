package jobs

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGainPerInstance: Table IV and t1 of an application other than the
// obstacle problem group runs by the application and all its parameters: a
// single-node Poisson run of blocks=auto n=32 is t1 of its 4-node run, not
// of one with n = 48, nor is an obstacle run of the same n and ε (before,
// every application's runs were dropped: only obstacle runs had a gain).
func TestGainPerInstance(t *testing.T) {
	poisson := func(n string, nodes int, wall float64) RunRecord {
		return RunRecord{ID: n + "-" + string(rune('0'+nodes)), Outcome: OutcomeOK, WallSeconds: wall,
			Job: RunConfig{App: "poisson", N: 32, Eps: 1e-8, Scheme: Synchronous, Nodes: nodes, Cores: nodes, Grid: "alpha",
				Inventory: InventoryEmbedded, Params: map[string]string{"n": n, "eps": "1e-8", "blocks": "auto"}}}
	}
	recs := []RunRecord{
		poisson("32", 1, 8), poisson("32", 4, 2),
		poisson("48", 1, 1), // another instance, faster: must not be t1
		{ID: "obst", Outcome: OutcomeOK, WallSeconds: 0.5, Job: RunConfig{App: "obstacle", N: 32, Eps: 1e-8,
			Scheme: Synchronous, Nodes: 1, Cores: 1, Grid: "alpha", Inventory: InventoryEmbedded}},
	}
	recs[2].Job.N = 48
	in := recs[1].Job.Instance()
	tab := BuildTableOf(GainTable, recs, in)
	if len(tab.Rows) != 2 || len(tab.Columns) != 1 {
		t.Fatalf("table %+v, want the two runs of the instance", tab)
	}
	if g := tab.Rows[1].Cells[0]; math.Abs(g-4) > 1e-9 {
		t.Errorf("gain of the 4-node run %g, want t1/ts = 8/2 = 4", g)
	}
	res := &Results{Records: recs}
	ref, ok := res.SingleNodeReferenceOf(in, InventoryEmbedded, "alpha")
	if !ok || ref.ID != recs[0].ID {
		t.Errorf("t1 reference %s, %v; want %s", ref.ID, ok, recs[0].ID)
	}
	if title := tab.Title(); !strings.Contains(title, "poisson eps=1e-08 n=32") {
		t.Errorf("title %q does not name the instance", title)
	}
	if ref, ok := res.SingleNodeReference(32, 1e-8, InventoryEmbedded, "alpha"); !ok || ref.ID != "obst" {
		t.Errorf("the obstacle problem's t1 %s, %v; want obst", ref.ID, ok)
	}
}

// TestInstanceCanonical: a parameter typed two ways (eps=1e-8 on the
// command line, 1e-08 from --eps or a job file's number, n=032) is one
// problem: the single-node run of one is t1 of the other.
func TestInstanceCanonical(t *testing.T) {
	rec := func(id string, nodes int, wall float64, params map[string]string) RunRecord {
		return RunRecord{ID: id, Outcome: OutcomeOK, WallSeconds: wall,
			Job: RunConfig{App: "poisson", N: 32, Eps: 1e-8, Scheme: Synchronous, Nodes: nodes, Cores: nodes, Grid: "alpha",
				Inventory: InventoryEmbedded, Params: params}}
	}
	one := rec("one", 1, 8, map[string]string{"n": "32", "eps": "1e-8", "blocks": "auto"})
	four := rec("four", 4, 2, map[string]string{"n": "032", "eps": "1e-08", "blocks": "auto"})
	if !one.Job.Instance().Equal(four.Job.Instance()) {
		t.Fatalf("%s and %s are two problems", one.Job.Instance(), four.Job.Instance())
	}
	other := rec("other", 1, 1, map[string]string{"n": "32", "eps": "1e-9", "blocks": "auto"})
	if other.Job.Instance().Equal(four.Job.Instance()) {
		t.Fatalf("eps 1e-9 and 1e-08 are one problem")
	}
	res := &Results{Records: []RunRecord{one, four, other}}
	ref, ok := res.SingleNodeReferenceOf(four.Job.Instance(), InventoryEmbedded, "alpha")
	if !ok || ref.ID != "one" {
		t.Errorf("t1 of the 4-node run: %s, %v; want one", ref.ID, ok)
	}
	unknown := RunConfig{App: "nosuch", Params: map[string]string{"eps": "1e-8"}}
	if got := unknown.Instance().Params["eps"]; got != "1e-8" {
		t.Errorf("an unregistered application's params rewritten: eps=%q", got)
	}
}

// TestInstanceLayoutAndFiles: a layout parameter (poisson's blocks) is no
// part of the problem — the 1-node run (blocks auto) is t1 of a 2×2×1
// run — and a file parameter is its content: one matrix under two paths
// is one problem, another matrix is another.
func TestInstanceLayoutAndFiles(t *testing.T) {
	poisson := func(blocks string) Instance {
		return RunConfig{App: "poisson", Params: map[string]string{"n": "32", "eps": "1e-8", "blocks": blocks}}.Instance()
	}
	if a, b := poisson("auto"), poisson("2x2x1"); !a.Equal(b) {
		t.Errorf("blocks=auto and blocks=2x2x1 are two problems: %s, %s", a, b)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m1, m1copy, m2 := write("a.mtx", "matrix one"), write("b.mtx", "matrix one"), write("c.mtx", "matrix two")
	sparse := func(path string) Instance {
		return RunConfig{App: "test-path", Params: map[string]string{"input": path}}.Instance()
	}
	if a, b := sparse(m1), sparse(m1copy); !a.Equal(b) || !strings.Contains(a.ParamKey(), "sha256:") {
		t.Errorf("one matrix under two paths: %s, %s", a.ParamKey(), b.ParamKey())
	}
	if a, b := sparse(m1), sparse(m2); a.Equal(b) {
		t.Errorf("two matrices are one problem: %s", a.ParamKey())
	}
}

// TestInstanceExactIterations: a run of exactly K sweeps (--iterations K)
// is timed over them, not to a solution: a problem of its own, beside the
// runs of the same parameters that converged, and the same as another run
// of the same K.
func TestInstanceExactIterations(t *testing.T) {
	conv := RunConfig{App: "obstacle", N: 16, Eps: 1e-6}
	k50, k50b, k60 := conv, conv, conv
	k50.Iterations, k50b.Iterations, k60.Iterations = 50, 50, 60
	if conv.Instance().ParamKey() == k50.Instance().ParamKey() {
		t.Errorf("a 50-sweep run is the converged problem: %q", k50.Instance().ParamKey())
	}
	if k50.Instance().ParamKey() != k50b.Instance().ParamKey() || k50.Instance().ParamKey() == k60.Instance().ParamKey() {
		t.Errorf("keys %q %q %q", k50.Instance().ParamKey(), k50b.Instance().ParamKey(), k60.Instance().ParamKey())
	}
	if conv.Instance().Params != nil {
		t.Errorf("the converged obstacle problem has params %v", conv.Instance().Params)
	}
}
