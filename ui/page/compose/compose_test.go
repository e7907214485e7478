package compose

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/ui/page/network"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
)

// composeWith returns a composer on inv with hosts picked: the default
// job's nodes without picks, else only those.
func composeWith(c *Common, inv *inventory.Inventory, picks ...string) Model {
	v := New(c, inv)
	if h, err := grid.Htable(inv); err == nil {
		v.SetHtable(h)
	}
	if len(picks) > 0 {
		v.picked, v.field(fAny).Value = map[string]bool{}, "0"
	}
	for _, p := range picks {
		v.picked[p] = true
	}
	v.validate()
	return v
}

// press sends keys to the composer and returns the last command's message
// (of a batch, the first that is not the Predict panel's, whose messages
// the composer gets back).
func (v *Model) press(keys ...string) tea.Msg {
	var msg tea.Msg
	for _, k := range keys {
		var cmd tea.Cmd
		*v, cmd = v.update(keyPress(k))
		msg = nil
		for queue := cmdMsgs(cmd); len(queue) > 0; queue = queue[1:] {
			switch queue[0].(type) {
			case predictTickMsg, predictedMsg:
				*v, cmd = v.update(queue[0])
				queue = append(queue, cmdMsgs(cmd)...)
			default:
				if msg == nil {
					msg = queue[0]
				}
			}
		}
	}
	return msg
}

// cmdMsgs runs cmd and returns its messages, a batch's each.
func cmdMsgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for _, c := range batch {
		out = append(out, cmdMsgs(c)...)
	}
	return out
}

func TestComposeView(t *testing.T) {
	cases := []struct {
		name  string
		inv   *inventory.Inventory
		setup func(v *Model)
	}{
		{name: "default", inv: inventory.Embedded()},
		{name: "four_async", inv: inventory.Embedded(), setup: func(v *Model) {
			v.picked["alpha-1"], v.picked["alpha-2"], v.picked["beta-1"], v.picked["beta-2"] = true, true, true, true
			v.field(fScheme).Value = "async"
			v.validate()
		}},
		{name: "problems", inv: inventory.Embedded(), setup: func(v *Model) {
			for _, h := range v.inv.Hosts() {
				v.picked[h.Name] = true
			}
			v.param("n").Value = "3"
			v.field(fAny).Value = "12"
			v.field(fCores).Value = "5"
			v.validate()
		}},
		{name: "editing", inv: inventory.Embedded(), setup: func(v *Model) {
			v.press("down", "down", "enter", "backspace", "backspace", "6", "4")
		}},
		{name: "hierarchy_edited", inv: inventory.Embedded(), setup: func(v *Model) {
			noNodes(v)
			v.press("right", "space", "right", "down", "down", "down", "m", "c")
		}},
		{name: "empty", inv: &inventory.Inventory{Source: "sites.toml"}},
		{name: "loaded_mixed", inv: twoSites(), setup: func(v *Model) {
			*v, _ = v.update(SpecLoadedMsg{Path: "job.toml", Spec: loadedSpec(jobs.NodeSelection{
				Sites: []string{"east"}, Clusters: []string{"beta", "gamma"}, Hosts: []string{"gamma-2", "alpha-3"}})})
		}},
		{name: "loaded_empty", inv: twoSites(), setup: func(v *Model) {
			*v, _ = v.update(SpecLoadedMsg{Path: "job.toml", Spec: loadedSpec(jobs.NodeSelection{
				Sites: []string{"west"}, Clusters: []string{"alpha"}})})
		}},
		{name: "1024", inv: bigInventory(1024), setup: func(v *Model) {
			for _, h := range v.inv.Hosts() {
				v.picked[h.Name] = true
			}
			v.validate()
		}},
		{name: "poisson_blocks", inv: inventory.Embedded(), setup: func(v *Model) {
			v.cursor[paneForm] = v.row(fApp)
			for v.field(fApp).Value != "poisson" {
				v.press("enter")
			}
			v.param("blocks").Value = "2x2x2"
			v.validate()
			v.press("down", "down", "down")
		}},
		{name: "1024_planned", inv: bigInventory(1024), setup: func(v *Model) {
			for _, h := range v.inv.Hosts() {
				v.picked[h.Name] = true
			}
			v.param("n").Value = "2048"
			v.field(fScheme).Value = "async"
			v.validate()
			v.pane, v.cursor[paneHierarchy] = paneHierarchy, 40
		}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := composeWith(c, tc.inv)
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

func TestComposeSpec(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-2")
	v.field(fScheme).Value = "async"
	v.field(fAny).Value = "0"
	v.validate()
	if p := v.Problems(); len(p) != 0 {
		t.Fatalf("problems %q for a valid job", p)
	}
	s := v.Spec()
	// A partly picked cluster: every host by name (engine.PlanJob reads
	// Hosts alone when they are given).
	if len(s.Nodes.Clusters) != 0 || !slices.Equal(s.Nodes.Hosts, []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-2"}) {
		t.Errorf("selection = %+v, want the five hosts", s.Nodes)
	}
	v.picked["beta-2"] = false
	v.field(fAny).Value = "3"
	v.validate()
	if s := v.Spec(); !slices.Equal(s.Nodes.Clusters, []string{"alpha"}) || s.Nodes.Any != 3 || len(s.Nodes.Hosts) != 0 {
		t.Errorf("whole cluster, take 3: selection = %+v, want cluster alpha, any 3", s.Nodes)
	}
	if v.plan == nil || len(v.plan.Ranks) != 3 || v.plan.Ranks[2] != "alpha-3" {
		t.Errorf("engine plan = %+v, want ranks alpha-1..alpha-3", v.plan)
	}
	v.picked["beta-2"] = true
	v.field(fAny).Value = "0"
	v.validate()
	s = v.Spec()
	if s.Scheme != jobs.Asynchronous || s.Detector != jobs.DetectActivity {
		t.Errorf("scheme/detector = %s/%s, want async/activity", s.Scheme, s.Detector)
	}
	g := v.hierarchy()
	if len(g) != 2 || g[0].Coordinator != "alpha-1" || len(g[0].Workers) != 4 || g[1].Coordinator != "beta-2" {
		t.Errorf("automatic hierarchy = %+v, want alpha (4, alpha-1) and beta (beta-2)", g)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("composed spec does not validate: %v", err)
	}
}

// TestComposeLoadUnknownNodes: a job file naming a host the inventory does
// not have is not silently shrunk to the hosts that exist: the composer
// refuses to start it until the user chooses the nodes again.
func TestComposeLoadUnknownNodes(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded())
	spec := jobs.Spec{Name: "j4", App: jobs.DefaultSpec().App, Params: map[string]string{"n": "32", "eps": "1e-8"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "gamma-9"}, Clusters: []string{"delta"}}}
	v, _ = v.update(SpecLoadedMsg{Path: "j4.toml", Spec: spec})
	probs := strings.Join(v.Problems(), "\n")
	if !strings.Contains(probs, "host gamma-9") || !strings.Contains(probs, "cluster delta") {
		t.Fatalf("problems %q, want the unknown host gamma-9 and cluster delta named", probs)
	}
	if cmd := v.start(); cmd != nil {
		t.Fatal("the composer started a job whose file names unknown nodes")
	}
	// Choosing nodes again (toggling beta) makes the job the user's own.
	v.pane, v.cursor[paneNodes] = paneNodes, 5
	v, _ = v.update(keyPress("space"))
	if p := v.Problems(); len(p) != 0 {
		t.Errorf("problems after choosing nodes again: %q", p)
	}
}

func TestComposeValidation(t *testing.T) {
	c := testCommon(80, 24)
	cases := []struct {
		name  string
		picks []string
		edit  func(v *Model)
		want  string
	}{
		{name: "no nodes", edit: noNodes, want: "no nodes chosen"},
		{name: "not enough", picks: []string{"alpha-1", "alpha-2"}, edit: func(v *Model) { v.field(fAny).Value = "3" },
			want: "not enough nodes: 3 asked, 2 chosen"},
		{name: "n too small", picks: []string{"alpha-1", "alpha-2", "beta-1"}, edit: func(v *Model) { v.param("n").Value = "2" },
			want: "n = 2 is too small to split over 3 nodes"},
		{name: "bad number", picks: []string{"alpha-1"}, edit: func(v *Model) { v.param("n").Value = "lots" },
			want: `n: "lots" is not an integer (want 1…4096)`},
		{name: "bad detector", picks: []string{"alpha-1"}, edit: func(v *Model) {
			v.field(fScheme).Value, v.field(fDetector).Value = "async", "tokens"
		}, want: "detector"},
		{name: "group too big", picks: []string{"alpha-1", "alpha-2"}, edit: func(v *Model) {
			v.groups = []jobs.Group{{Coordinator: "alpha-1", Workers: slices.Repeat([]string{"alpha-1"}, 33)}}
		}, want: "at most 32"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := composeWith(c, inventory.Embedded(), tc.picks...)
			if tc.edit != nil {
				tc.edit(&v)
			}
			v.validate()
			if !strings.Contains(strings.Join(v.Problems(), "\n"), tc.want) {
				t.Errorf("problems %q do not mention %q", v.Problems(), tc.want)
			}
			if msg := v.press("r"); msg != nil {
				t.Errorf("r started an invalid job: %#v", msg)
			}
		})
	}
}

// TestComposeUnreachablePair: a node with no network in common with its
// neighbour (IPv4 against IPv6-only Ethernet, different clusters) is
// reported, naming the pair, and blocks the start.
func TestComposeUnreachablePair(t *testing.T) {
	inv := inventory.Embedded()
	h := &inv.Sites[0].Clusters[1].Hosts[0] // beta-1
	h.EthernetAddr = netip.MustParseAddr("fd00:34::20")
	h.FastAddr = netip.Addr{}
	c := testCommon(80, 24)
	v := composeWith(c, inv, "alpha-4", "beta-1")
	p := strings.Join(v.Problems(), "\n")
	if !strings.Contains(p, "unreachable pair alpha-4 ↔ beta-1") {
		t.Fatalf("problems %q do not name the unreachable pair", p)
	}
	if msg := v.press("r"); msg != nil {
		t.Errorf("r started a job with an unreachable pair: %#v", msg)
	}
}

func TestComposeStartAndHierarchyEdit(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded())
	noNodes(&v)
	// Nodes pane: pick cluster alpha (4 hosts), then beta-1.
	v.press("right", "space", "down", "down", "down", "down", "down", "down", "space")
	if n := len(v.chosen()); n != 5 {
		t.Fatalf("chose %d nodes, want 5", n)
	}
	// Hierarchy pane: the row after the first group header is alpha-1.
	v.press("right", "down", "down", "down") // submitter, group 0, alpha-1, alpha-2
	v.press("m")                             // alpha-2 → group 1 (beta)
	g := v.hierarchy()
	if len(g) != 2 || !slices.Contains(g[1].Workers, "alpha-2") || slices.Contains(g[0].Workers, "alpha-2") {
		t.Fatalf("after m: %+v, want alpha-2 in group 1", g)
	}
	v.press("c") // alpha-2 coordinates group 1
	if g := v.hierarchy(); g[1].Coordinator != "alpha-2" {
		t.Fatalf("after c: coordinator %s, want alpha-2", g[1].Coordinator)
	}
	v.press("left", "left") // back to the form
	v.cursor[paneForm] = v.row(fStart)
	msg, ok := v.press("enter").(StartRunMsg)
	if !ok {
		t.Fatalf("enter on Start: no StartRunMsg (problems %q)", v.Problems())
	}
	if len(msg.Spec.Groups) != 2 || msg.Spec.Groups[1].Coordinator != "alpha-2" {
		t.Errorf("started spec groups = %+v, want the edited hierarchy", msg.Spec.Groups)
	}
	if err := msg.Spec.Validate(); err != nil {
		t.Errorf("started spec invalid: %v", err)
	}
}

// TestJobFileRoundTrip: what Compose saves, jobs.LoadSpec reads back equal,
// and loading restores the form.
func TestJobFileRoundTrip(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2", "beta-3")
	v.field(fScheme).Value = "hybrid"
	v.param("n").Value = "32"
	v.param("eps").Value = "1e-7"
	v.field(fWall).Value = "90s"
	v.groups = []jobs.Group{{Coordinator: "alpha-2", Workers: []string{"alpha-1", "alpha-2"}}, {Coordinator: "beta-3", Workers: []string{"beta-3"}}}
	path := filepath.Join(t.TempDir(), "job.toml")
	v.field(fFile).Value = path
	save, ok := v.press("ctrl+s").(SaveSpecMsg)
	if !ok {
		t.Fatal("ctrl+s did not ask to save")
	}
	if err := jobs.SaveSpec(save.Path, save.Spec, JobFileComment); err != nil {
		t.Fatal(err)
	}
	got, err := jobs.LoadSpec(path)
	if err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("saved job does not load: %v\n%s", err, data)
	}
	want := v.Spec()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	w := composeWith(c, inventory.Embedded())
	w.update(SpecLoadedMsg{Path: path, Spec: got})
	w, _ = w.update(SpecLoadedMsg{Path: path, Spec: got})
	if fmt.Sprint(w.Spec()) != fmt.Sprint(want) {
		t.Errorf("loaded form gives %+v, want %+v", w.Spec(), want)
	}
}

// TestComposeUnprobedSSHHosts: SSH hosts are not in the Htable until they
// are probed; their pairs are "not probed yet", which does not block the
// start (the engine chooses their networks when the run starts).
func TestComposeUnprobedSSHHosts(t *testing.T) {
	inv := &inventory.Inventory{Source: "sites.toml", Sites: []inventory.Site{{Name: "lyon", Launcher: inventory.LauncherSSH,
		Clusters: []inventory.Cluster{{Name: "sagittaire", Cores: 2, Hosts: []inventory.Host{
			{Name: "sagittaire-1.lyon", Site: "lyon", Cluster: "sagittaire", Cores: 2},
			{Name: "sagittaire-2.lyon", Site: "lyon", Cluster: "sagittaire", Cores: 2},
		}}}}}}
	c := testCommon(80, 24)
	v := composeWith(c, inv, "sagittaire-1.lyon", "sagittaire-2.lyon")
	if p := v.Problems(); len(p) != 0 {
		t.Fatalf("problems %q for unprobed SSH hosts", p)
	}
	if pairs := v.Pairs(); len(pairs) != 1 || !errors.Is(pairs[0].Err, errNotProbed) {
		t.Fatalf("pairs %+v, want one not probed", pairs)
	}
	nv := network.New(c)
	nv.SetPairs(v.Pairs())
	if s := nv.Summary(); !strings.Contains(s, "1 not probed yet") || strings.Contains(s, "UNREACHABLE") {
		t.Errorf("summary %q", s)
	}
	if _, ok := v.press("r").(StartRunMsg); !ok {
		t.Error("r did not start a job on unprobed SSH hosts")
	}
}

// TestComposeLevels checks that a job of more than 32 groups shows its
// coordinators of coordinators: on the submitter's line and on the groups
// whose coordinator also serves a level above.
func TestComposeLevels(t *testing.T) {
	v := New(testCommon(200, 60), inventory.Embedded())
	for g := range 40 {
		grp := jobs.Group{Coordinator: fmt.Sprintf("n%d-1", g)}
		for w := range jobs.MaxGroupSize {
			grp.Workers = append(grp.Workers, fmt.Sprintf("n%d-%d", g, w+1))
		}
		v.groups = append(v.groups, grp)
	}
	lines := v.hierLines(200, 10000)
	if want := "1280 workers, 40 groups under 2 coordinators of coordinators (2 levels below the submitter)"; !strings.Contains(lines[0], want) {
		t.Errorf("submitter line %q, want %q", lines[0], want)
	}
	var marked []string
	for _, l := range lines {
		if strings.Contains(l, "also coordinates at level 2") {
			marked = append(marked, l)
		}
	}
	if len(marked) != 2 || !strings.Contains(marked[0], "coordinator n0-1") || !strings.Contains(marked[1], "coordinator n32-1") {
		t.Errorf("groups marked as level-2 coordinators: %q", marked)
	}
}

// noNodes unpicks the default job's nodes.
func noNodes(v *Model) {
	v.picked, v.field(fAny).Value = map[string]bool{}, "0"
	v.validate()
}

// TestComposeKeepsOutput: a job file's [output] (no field of the form)
// stays with the job Compose loads, runs and saves: the console's run of it
// writes the solution where the file says.
func TestComposeKeepsOutput(t *testing.T) {
	c := testCommon(80, 24)
	spec := jobs.DefaultSpec()
	spec.Output = jobs.Output{Dir: "/srv/out", Raw: true}
	v := composeWith(c, inventory.Embedded())
	v, _ = v.update(SpecLoadedMsg{Path: "job.toml", Spec: spec})
	if got := v.Spec().Output; got != spec.Output {
		t.Errorf("the loaded job's output is %+v, want %+v", got, spec.Output)
	}
}
