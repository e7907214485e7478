package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
)

// twoSitesTOML is a local grid of two sites: east with clusters alpha and
// beta, west with cluster gamma, three nodes each.
const twoSitesTOML = `locality = "octet"
[[site]]
name = "east"
launcher = "local"
  [[site.cluster]]
  name = "alpha"
  nodes = 3
  cores = 1
  ethernet_addr = "127.16.64.10"
  fast_addr = "127.18.64.10"
  [[site.cluster]]
  name = "beta"
  nodes = 3
  cores = 1
  ethernet_addr = "127.16.34.20"
  fast_addr = "127.18.34.20"
[[site]]
name = "west"
launcher = "local"
  [[site.cluster]]
  name = "gamma"
  nodes = 3
  cores = 1
  ethernet_addr = "127.16.44.30"
  fast_addr = "127.18.44.30"
`

func twoSites() *inventory.Inventory {
	inv, err := inventory.Parse("two-sites.toml", []byte(twoSitesTOML))
	if err != nil {
		panic("ui test: two-sites inventory: " + err.Error())
	}
	return inv
}

// loadedSpec is a small async job on the selection, as read from a file.
func loadedSpec(sel jobs.NodeSelection) jobs.Spec {
	s := jobs.DefaultSpec()
	s.Name, s.Scheme, s.Detector, s.Nodes = "mixed", jobs.Asynchronous, "", sel
	s.Params = map[string]string{"n": "32", "eps": "1e-8"}
	return s.WithDefaults()
}

// runPlan is what `gridtui run --job path` plans on inv when every host
// has a worker: the job file as it is, then engine.PlanJob, which resolves
// its selection.
func runPlan(t *testing.T, path string, inv *inventory.Inventory) ([]string, error) {
	t.Helper()
	spec, err := jobs.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	return planRanks(spec, inv)
}

func planRanks(spec jobs.Spec, inv *inventory.Inventory) ([]string, error) {
	h, err := grid.Htable(inv)
	if err != nil {
		return nil, err
	}
	p, err := engine.PlanJob(spec, inv, h.Nodes())
	if err != nil {
		return nil, err
	}
	return p.Ranks, nil
}

// loadInConsole loads the job file as ctrl+o does in the console: the root
// reads it (jobs.LoadSpec) and hands the spec to the Compose page.
func loadInConsole(t *testing.T, inv *inventory.Inventory, path string) Model {
	t.Helper()
	v := New(testCommon(80, 24), inv)
	if h, err := grid.Htable(inv); err == nil { // as the root hands it
		v.SetHtable(h)
	}
	s, err := jobs.LoadSpec(path)
	v, _ = v.update(SpecLoadedMsg{Path: path, Spec: s, Err: err})
	if !strings.HasPrefix(v.status, "loaded "+path) {
		t.Fatalf("ctrl+o: status %q, want the file loaded", v.status)
	}
	return v
}

// TestComposeSelectionAsRun: a job file's [nodes] loaded in Compose plans
// the same nodes, in the same rank order, as `gridtui run --job` (the engine's
// planner); the job Compose starts plans them too.
func TestComposeSelectionAsRun(t *testing.T) {
	alpha := []string{"alpha-1", "alpha-2", "alpha-3"}
	tests := map[string]struct {
		nodes string
		want  []string
	}{
		"cluster and hosts":          {`clusters = ["alpha"]` + "\n" + `hosts = ["gamma-2", "beta-1"]`, append(slices.Clone(alpha), "beta-1", "gamma-2")},
		"host inside its cluster":    {`clusters = ["alpha"]` + "\n" + `hosts = ["alpha-2", "beta-3"]`, append(slices.Clone(alpha), "beta-3")},
		"mixed with any":             {`clusters = ["beta"]` + "\n" + `hosts = ["alpha-1"]` + "\nany = 3", []string{"alpha-1", "beta-1", "beta-2"}},
		"site and cluster intersect": {`sites = ["east"]` + "\n" + `clusters = ["alpha", "gamma"]`, alpha},
		"site, cluster and host":     {`sites = ["east"]` + "\n" + `clusters = ["beta"]` + "\n" + `hosts = ["gamma-3"]`, []string{"beta-1", "beta-2", "beta-3", "gamma-3"}},
		"site and host":              {`sites = ["west"]` + "\n" + `hosts = ["alpha-3"]`, []string{"alpha-3", "gamma-1", "gamma-2", "gamma-3"}},
		"hosts out of order":         {`hosts = ["gamma-1", "alpha-2", "beta-1"]`, []string{"gamma-1", "alpha-2", "beta-1"}},
		"hosts with any":             {`hosts = ["gamma-1", "alpha-2", "beta-1"]` + "\nany = 2", []string{"gamma-1", "alpha-2"}},
		"site with any":              {`sites = ["west"]` + "\nany = 2", []string{"gamma-1", "gamma-2"}},
		"no [nodes]: every host":     {"", append(slices.Clone(alpha), "beta-1", "beta-2", "beta-3", "gamma-1", "gamma-2", "gamma-3")},
	}
	inv := twoSites()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "job.toml")
			doc := "scheme = \"async\"\n[obstacle]\nn = 32\n[nodes]\n" + tc.nodes + "\n"
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := runPlan(t, path, inv)
			if err != nil || !slices.Equal(run, tc.want) {
				t.Fatalf("gridtui run plans %v (%v), want %v", run, err, tc.want)
			}
			v := loadInConsole(t, inv, path)
			if p := v.Problems(); len(p) != 0 {
				t.Fatalf("Compose problems %q", p)
			}
			if v.plan == nil || !slices.Equal(v.plan.Ranks, run) {
				var ranks []string
				if v.plan != nil {
					ranks = v.plan.Ranks
				}
				t.Fatalf("Compose plans %v, gridtui run plans %v", ranks, run)
			}
			var chosen []string
			for _, h := range v.chosen() {
				chosen = append(chosen, h.Name)
			}
			if !slices.Equal(chosen, run) {
				t.Errorf("Compose's Nodes pane chose %v, gridtui run plans %v", chosen, run)
			}
			if want := fmt.Sprintf("→ %d nodes", len(run)); !strings.Contains(v.status, want) {
				t.Errorf("status %q does not say %q", v.status, want)
			}
			start, ok := v.press("r").(StartRunMsg)
			if !ok {
				t.Fatal("r did not start the loaded job")
			}
			if start.Spec.Nodes.Mixed() {
				t.Errorf("Compose starts a mixed selection %+v", start.Spec.Nodes)
			}
			if got, err := planRanks(start.Spec, inv); err != nil || !slices.Equal(got, run) {
				t.Errorf("the job Compose starts plans %v (%v), want %v", got, err, run)
			}
		})
	}
}

// TestComposeEmptySelection: sites and clusters that share no host select
// nothing; `gridtui run` cannot plan it, and Compose says why and refuses
// to start until the user chooses nodes again.
func TestComposeEmptySelection(t *testing.T) {
	inv := twoSites()
	for name, nodes := range map[string]string{
		"groups only":     `sites = ["west"]` + "\n" + `clusters = ["alpha"]`,
		"groups and host": `sites = ["west"]` + "\n" + `clusters = ["alpha"]` + "\n" + `hosts = ["beta-1"]`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "job.toml")
			if err := os.WriteFile(path, []byte("[obstacle]\nn = 32\n[nodes]\n"+nodes+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if run, err := runPlan(t, path, inv); err == nil {
				t.Fatalf("gridtui run plans %v for an empty selection", run)
			}
			v := loadInConsole(t, inv, path)
			want := "sites west and clusters alpha have no host in common in two-sites.toml"
			if p := strings.Join(v.Problems(), "\n"); !strings.Contains(p, want) || strings.Contains(p, "no nodes chosen") {
				t.Fatalf("problems %q, want only %q", p, want)
			}
			if len(v.chosen()) != 0 {
				t.Errorf("Compose chose %d nodes for an empty selection", len(v.chosen()))
			}
			if msg := v.press("r"); msg != nil {
				t.Fatalf("r started an empty selection: %#v", msg)
			}
			v.pane, v.cursor[paneNodes] = paneNodes, 0 // cluster alpha
			v.press("space")
			if p := v.Problems(); len(p) != 0 {
				t.Errorf("problems after choosing alpha: %q", p)
			}
		})
	}
}

// TestHierarchyCountsRead: one worker and one group read in the singular.
func TestHierarchyCountsRead(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded(), "alpha-1")
	out := ansiStrip(v.View())
	for _, bad := range []string{"1 workers", "1 groups", "1 nodes", "1 neighbour pairs"} {
		if strings.Contains(out, bad) {
			t.Errorf("Compose reads %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "1 worker,") || !strings.Contains(out, "(1 group)") {
		t.Errorf("Compose does not count 1 worker in 1 group:\n%s", out)
	}
}

// TestComposeKeepsEditedHierarchy: changing the node choice keeps what
// still applies of a hand-edited hierarchy (groups, coordinators) instead
// of going back to the automatic one, and the status says what changed.
func TestComposeKeepsEditedHierarchy(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1", "beta-2")
	v.groups = []jobs.Group{
		{Coordinator: "alpha-2", Workers: []string{"alpha-1", "alpha-2", "alpha-3"}},
		{Coordinator: "alpha-4", Workers: []string{"alpha-4"}},
		{Coordinator: "beta-2", Workers: []string{"beta-1", "beta-2"}},
	}
	v.validate()
	toggle := func(row int) {
		v.pane, v.cursor[paneNodes] = paneNodes, row
		v.press("space")
	}
	steps := []struct {
		row    int
		want   []jobs.Group
		status []string
	}{
		{row: 2, // alpha-2 off: its group keeps the others, alpha-1 coordinates
			want: []jobs.Group{{Coordinator: "alpha-1", Workers: []string{"alpha-1", "alpha-3"}},
				{Coordinator: "alpha-4", Workers: []string{"alpha-4"}}, {Coordinator: "beta-2", Workers: []string{"beta-1", "beta-2"}}},
			status: []string{"alpha-2 left group 0", "group 0's coordinator is now alpha-1"}},
		{row: 8, // beta-3 on: joins the group of its cluster
			want: []jobs.Group{{Coordinator: "alpha-1", Workers: []string{"alpha-1", "alpha-3"}},
				{Coordinator: "alpha-4", Workers: []string{"alpha-4"}}, {Coordinator: "beta-2", Workers: []string{"beta-1", "beta-2", "beta-3"}}},
			status: []string{"beta-3 joins beta-2's group"}},
		{row: 4, // alpha-4 off: its group goes
			want: []jobs.Group{{Coordinator: "alpha-1", Workers: []string{"alpha-1", "alpha-3"}},
				{Coordinator: "beta-2", Workers: []string{"beta-1", "beta-2", "beta-3"}}},
			status: []string{"group 1 (alpha-4) dropped"}},
	}
	for i, st := range steps {
		toggle(st.row)
		if !slices.EqualFunc(v.groups, st.want, func(a, b jobs.Group) bool {
			return a.Coordinator == b.Coordinator && slices.Equal(a.Workers, b.Workers)
		}) {
			t.Fatalf("step %d: groups %v, want %v", i, v.groups, st.want)
		}
		for _, w := range st.status {
			if !strings.Contains(v.status, w) {
				t.Errorf("step %d: status %q does not say %q", i, v.status, w)
			}
		}
		if len(v.Problems()) != 0 {
			t.Errorf("step %d: problems %q", i, v.Problems())
		}
	}
}

// TestComposeTakeTicksWhatItTakes: with Take N nodes = 1 the Nodes pane
// ticks the one host the job takes; the other picked hosts read "[·]" (picked,
// not taken) and their cluster counts 1 of 4.
func TestComposeTakeTicksWhatItTakes(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2", "alpha-3", "alpha-4")
	v.field(fAny).Value = "1"
	v.validate()
	view := ansiStrip(v.View())
	if n := strings.Count(view, "[x] alpha-"); n != 1 {
		t.Errorf("Take N = 1: %d hosts ticked, want 1:\n%s", n, view)
	}
	if n := strings.Count(view, "[·] alpha-"); n != 3 || !strings.Contains(view, "[-] alpha 1/4") {
		t.Errorf("Take N = 1: want 3 hosts picked but not taken and alpha 1/4:\n%s", view)
	}
}
