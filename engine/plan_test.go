package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/sparse"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// localNodes describes the hosts of inv as liveNodes does for local workers.
func TestPlanJob(t *testing.T) {
	small := inventory.Embedded()
	big, err := inventory.Load("../testdata/jobs/sites64.toml")
	if err != nil {
		t.Fatal(err)
	}
	obst := func(n int) map[string]string { return map[string]string{"n": strconv.Itoa(n), "eps": "1e-8"} }
	tests := map[string]struct {
		inv    *inventory.Inventory
		spec   jobs.Spec
		groups []string // "coordinator:size" per group
		modes  string   // S/A per neighbour pair
		ranks  string   // first and last rank's node
		err    string   // substring of the error, "" for none
	}{
		"default hybrid": {inv: small, spec: jobs.Spec{Params: obst(48), Scheme: jobs.Hybrid, Nodes: jobs.NodeSelection{Any: 8}},
			groups: []string{"alpha-1:4", "beta-1:4"}, modes: "SSSASSS", ranks: "alpha-1…beta-4"},
		"async": {inv: small, spec: jobs.Spec{Params: obst(48), Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 3}},
			groups: []string{"alpha-1:3"}, modes: "AA", ranks: "alpha-1…alpha-3"},
		"cluster beta": {inv: small, spec: jobs.Spec{Params: obst(48), Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Clusters: []string{"beta"}}},
			groups: []string{"beta-1:4"}, modes: "SSS", ranks: "beta-1…beta-4"},
		"hosts in order": {inv: small, spec: jobs.Spec{Params: obst(48), Scheme: jobs.Hybrid, Nodes: jobs.NodeSelection{Hosts: []string{"beta-2", "alpha-1"}}},
			groups: []string{"beta-2:1", "alpha-1:1"}, modes: "A", ranks: "beta-2…alpha-1"},
		"explicit groups": {inv: small, spec: jobs.Spec{Params: obst(48), Scheme: jobs.Asynchronous, Groups: []jobs.Group{
			{Coordinator: "alpha-2", Workers: []string{"alpha-1", "alpha-2"}}, {Coordinator: "beta-1", Workers: []string{"beta-1"}}}},
			groups: []string{"alpha-2:2", "beta-1:1"}, modes: "AA", ranks: "alpha-1…beta-1"},
		"64 nodes, 2 groups of 32": {inv: big, spec: jobs.Spec{Params: obst(64), Scheme: jobs.Hybrid, Nodes: jobs.NodeSelection{Any: 64}},
			groups: []string{"gamma-1:32", "delta-1:32"}, ranks: "gamma-1…delta-32"},
		"32+8 in one cluster": {inv: big, spec: jobs.Spec{Params: obst(64), Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 40}},
			groups: []string{"gamma-1:32", "delta-1:8"}, ranks: "gamma-1…delta-8"},
		"not enough":    {inv: small, spec: jobs.Spec{Params: obst(48), Nodes: jobs.NodeSelection{Any: 9}}, err: "needs 9, only 8 free"},
		"unknown host":  {inv: small, spec: jobs.Spec{Params: obst(48), Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "zeta-1"}}}, err: `host "zeta-1" is not in`},
		"n too small":   {inv: small, spec: jobs.Spec{Params: obst(5), Nodes: jobs.NodeSelection{Any: 8}}, err: "n = 5 is too small to split over 8 nodes"},
		"cores > n":     {inv: small, spec: jobs.Spec{Params: obst(8), Cores: 9, Nodes: jobs.NodeSelection{Any: 1}}, err: "9 cores but n = 8"},
		"empty cluster": {inv: small, spec: jobs.Spec{Params: obst(8), Nodes: jobs.NodeSelection{Clusters: []string{"omega"}}}, err: `cluster "omega" is not in`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := PlanJob(tc.spec, tc.inv, grid.LocalNodes(tc.inv))
			if tc.err != "" {
				if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want ErrPlan with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var groups []string
			for _, g := range p.Groups {
				groups = append(groups, fmt.Sprintf("%s:%d", g.Coordinator, len(g.Workers)))
			}
			if fmt.Sprint(groups) != fmt.Sprint(tc.groups) {
				t.Errorf("groups %v, want %v", groups, tc.groups)
			}
			if got := p.Ranks[0] + "…" + p.Ranks[len(p.Ranks)-1]; got != tc.ranks {
				t.Errorf("ranks %s, want %s", got, tc.ranks)
			}
			if tc.modes != "" {
				var modes strings.Builder
				for _, m := range p.Modes {
					modes.WriteString(map[rmnp.Mode]string{rmnp.Sync: "S", rmnp.Async: "A"}[m])
				}
				if modes.String() != tc.modes {
					t.Errorf("modes %s, want %s", modes.String(), tc.modes)
				}
			}
			n, _ := strconv.Atoi(tc.spec.Params["n"])
			points := 0
			for r, ps := range p.Task.Parts {
				if ps.Size < n*n || ps.Size%(n*n) != 0 {
					t.Fatalf("rank %d holds %d points, not whole planes of %d", r, ps.Size, n*n)
				}
				points += ps.Size
			}
			if points != n*n*n || len(p.Routes) != len(p.Ranks)-1 || len(p.Candidates) != len(p.Routes) {
				t.Errorf("parts hold %d points (n %d), %d routes for %d ranks", points, n, len(p.Routes), len(p.Ranks))
			}
			for i, r := range p.Routes {
				same := p.Modes[i] == rmnp.Sync
				if tc.spec.Scheme == jobs.Hybrid && same != (r.Network == probe.Infiniband) {
					t.Errorf("pair %d: mode %v over %s (%s)", i, p.Modes[i], r.Network, r.Reason)
				}
			}
		})
	}
}

func TestDialAddr(t *testing.T) {
	data := []string{"tcp://127.16.64.10:4000", "tcp://127.18.64.10:4001", "unix:///tmp/w/data.sock"}
	tests := map[string]struct {
		route probe.Route
		ip    string
		want  string
	}{
		"ethernet":   {probe.Route{Network: probe.Ethernet}, "127.16.64.10", "tcp://127.16.64.10:4000"},
		"infiniband": {probe.Route{Network: probe.Infiniband}, "127.18.64.10", "tcp://127.18.64.10:4001"},
		"unix":       {probe.Route{Network: probe.Unix}, "unix:alpha-1", "unix:///tmp/w/data.sock"},
		"missing":    {probe.Route{Network: probe.Ethernet}, "10.0.0.1", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := dialAddr(tc.route, tc.ip, data)
			if got != tc.want || (err == nil) != (tc.want != "") {
				t.Errorf("dialAddr = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestRunSelectionErrors(t *testing.T) {
	inv := inventory.Embedded()
	tests := map[string]struct {
		hosts  []string
		any    int
		is     error
		want   string
		prefix int // "engine:" prefixes
	}{
		"host not in the inventory": {hosts: []string{"alpha-1", "gamma-9"}, is: jobs.ErrUnknownName, want: `jobs: nodes: host "gamma-9" is not in embedded`},
		"too many nodes":            {any: 99, is: ErrNotEnoughNodes, want: "the job needs 99, only 8 free nodes", prefix: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "48", "eps": "1e-8"}, Scheme: jobs.Asynchronous,
				Nodes: jobs.NodeSelection{Hosts: tc.hosts, Any: tc.any}, Cores: 1}
			_, err := Run(context.Background(), spec, RunOptions{Inventory: inv, NoRecord: true})
			if !errors.Is(err, tc.is) || !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %v and ErrPlan with %q", err, tc.is, tc.want)
			}
			if n := strings.Count(err.Error(), "engine:"); n != tc.prefix {
				t.Errorf("error has %d 'engine:' prefixes, want %d: %v", n, tc.prefix, err)
			}
		})
	}
}

// TestLevels checks the hierarchy above the groups: at most
// jobs.MaxGroupSize children per coordinator at every level, every group's
// coordinator reached once, and the depth for 1 000, 10 000 and 100 000
// workers.
func TestLevels(t *testing.T) {
	tests := map[string]struct {
		workers, levels, top int
	}{
		"one group":     {workers: 8, levels: 1, top: 1},
		"1024 workers":  {workers: 1024, levels: 1, top: 32},
		"1025 workers":  {workers: 1025, levels: 2, top: 2},
		"10000 workers": {workers: 10000, levels: 2, top: 10},
		"32768 workers": {workers: 32768, levels: 2, top: 32},
		"1e5 workers":   {workers: 100000, levels: 3, top: 4},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var groups []jobs.Group
			for w := 0; w < tc.workers; w++ {
				name := fmt.Sprintf("n%d", w)
				if w%jobs.MaxGroupSize == 0 {
					groups = append(groups, jobs.Group{Coordinator: name})
				}
				groups[len(groups)-1].Workers = append(groups[len(groups)-1].Workers, name)
			}
			levels := worker.Levels(groups)
			if len(levels) != tc.levels || len(levels[len(levels)-1]) != tc.top {
				t.Fatalf("%d levels with %d at the top, want %d and %d: %s", len(levels), len(levels[len(levels)-1]), tc.levels, tc.top, worker.DescribeLevels(levels))
			}
			for k := 1; k < len(levels); k++ {
				seen := map[string]bool{}
				for _, g := range levels[k] {
					if len(g.Workers) > jobs.MaxGroupSize || g.Workers[0] != g.Coordinator {
						t.Fatalf("level %d: group of %d coordinated by %s (first %s)", k, len(g.Workers), g.Coordinator, g.Workers[0])
					}
					for _, c := range g.Workers {
						seen[c] = true
					}
				}
				for _, g := range levels[k-1] {
					if !seen[g.Coordinator] {
						t.Fatalf("level %d does not reach %s", k, g.Coordinator)
					}
				}
				if len(seen) != len(levels[k-1]) {
					t.Fatalf("level %d reaches %d coordinators, level %d has %d", k, len(seen), k-1, len(levels[k-1]))
				}
			}
		})
	}
	if got, want := worker.DescribeLevels(worker.Levels([]jobs.Group{{Coordinator: "a", Workers: []string{"a", "b"}}})), "2 workers, 1 group (1 level below the submitter)"; got != want {
		t.Errorf("DescribeLevels = %q, want %q", got, want)
	}
}

// TestTasksSkipLoopbackQuietly: two SSH workers on one machine (four
// loopback addresses, as a test grid has) get the candidates unix socket,
// loopback, ethernet; workers never listen on loopback (same-host pairs
// use the unix socket), so that candidate is dropped without a warning on
// every run. A network the route wants that the worker does not listen on
// is still reported, naming the node and what to check.
func TestTasksSkipLoopbackQuietly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bData    []string
		want     []probe.Kind
		warnings []string
	}{
		{name: "loopback", bData: []string{"tcp://127.16.64.11:4001", "unix:///tmp/b/data.sock"},
			want: []probe.Kind{probe.Unix, probe.Ethernet}},
		{name: "ethernet_missing", bData: []string{"unix:///tmp/b/data.sock"},
			want:     []probe.Kind{probe.Unix},
			warnings: []string{"b does not listen on its ethernet address 127.16.64.11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same := "same host (h)"
			plan := &Plan{Ranks: []string{"a", "b"}, Cores: []int{1, 1},
				Modes: []rmnp.Mode{rmnp.Sync}, Edges: [][2]int{{0, 1}},
				Task: gridapp.Task{Parts: []gridapp.PartSpec{{Neighbours: []int{1}}, {Neighbours: []int{0}}}},
				Candidates: [][]probe.Route{{
					{A: "a", B: "b", Network: probe.Unix, AAddr: probe.UnixPrefix + "a", BAddr: probe.UnixPrefix + "b", Reason: same},
					{A: "a", B: "b", Network: probe.Loopback, AAddr: "127.0.0.1", BAddr: "127.0.0.1", Reason: same + ", fallback"},
					{A: "a", B: "b", Network: probe.Ethernet, AAddr: "127.16.64.10", BAddr: "127.16.64.11", Reason: same + ", fallback"},
				}}}
			plan.Routes = []probe.Route{plan.Candidates[0][0]}
			var logs []string
			s := &submission{spec: jobs.Spec{Scheme: jobs.Synchronous}, plan: plan,
				data: map[string][]string{"a": {"tcp://127.16.64.10:4000"}, "b": tc.bData},
				logf: func(node, f string, args ...any) { logs = append(logs, fmt.Sprintf(f, args...)) }}
			tasks, err := s.tasks(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []probe.Kind
			for _, r := range tasks[0].Neighbours[0].Routes {
				got = append(got, r.Network)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("routes %v, want %v", got, tc.want)
			}
			var warned []string
			for _, l := range logs {
				if strings.Contains(l, "warning") {
					warned = append(warned, l)
				}
			}
			if len(warned) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d", warned, len(tc.warnings))
			}
			for i, w := range tc.warnings {
				if !strings.Contains(warned[i], w) {
					t.Errorf("warning %q, want it to say %q", warned[i], w)
				}
			}
		})
	}
}

// TestPlanClustersWithAnyOnStartedWorkers: a run of "clusters alpha, beta,
// any 2" starts the workers of alpha-1 and alpha-2 only; planning on those
// takes them (before, beta having no live worker failed the run with
// "needs 2, only 0 free nodes match", though Compose had planned it).
func TestPlanClustersWithAnyOnStartedWorkers(t *testing.T) {
	inv := inventory.Embedded()
	live := grid.LocalNodes(inv)[:2]
	spec := jobs.Spec{Params: map[string]string{"n": "16", "eps": "1e-6"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Clusters: []string{"alpha", "beta"}, Any: 2}}
	p, err := PlanJob(spec, inv, live)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Ranks, []string{"alpha-1", "alpha-2"}) {
		t.Errorf("ranks %v, want alpha-1, alpha-2", p.Ranks)
	}
	spec.Nodes.Any = 3
	if _, err := PlanJob(spec, inv, live); err == nil || !strings.Contains(err.Error(), "needs 3") {
		t.Errorf("3 of 2 live workers: %v, want not enough nodes", err)
	}
}

// TestPlanRefusesAsyncSparse: planning an asynchronous or hybrid job (with a
// link across clusters) on a matrix that is not diagonally dominant fails
// with the reason, unless force is set; a synchronous one, and a hybrid one
// inside one cluster, plan.
func TestPlanRefusesAsyncSparse(t *testing.T) {
	inv := inventory.Embedded()
	spec := func(scheme jobs.Scheme, nodes jobs.NodeSelection, force string) jobs.Spec {
		return jobs.Spec{Name: "sparse", App: sparse.Name, Scheme: scheme, Nodes: nodes,
			Params: map[string]string{"matrix": sparseTestdata(t, "tridiag-nondominant.mtx"), "force": force}}
	}
	any2 := jobs.NodeSelection{Any: 2}
	across := jobs.NodeSelection{Hosts: []string{"alpha-1", "beta-1"}}
	for _, c := range []struct {
		name   string
		spec   jobs.Spec
		refuse bool
	}{
		{"async", spec(jobs.Asynchronous, any2, "false"), true},
		{"hybrid across clusters", spec(jobs.Hybrid, across, "false"), true},
		{"hybrid in one cluster", spec(jobs.Hybrid, any2, "false"), false},
		{"async forced", spec(jobs.Asynchronous, any2, "true"), false},
		{"sync", spec(jobs.Synchronous, across, "false"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := PlanJob(c.spec, inv, grid.LocalNodes(inv))
			if !c.refuse {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "asynchronous iterations are not known to converge") ||
				!strings.Contains(err.Error(), "force=true") {
				t.Fatalf("error %v, want the refusal with its reason", err)
			}
		})
	}
}

// sparseTestdata returns the absolute path of a matrix of apps/sparse's
// testdata.
func sparseTestdata(t *testing.T, file string) string {
	t.Helper()
	p, err := filepath.Abs("../apps/sparse/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
