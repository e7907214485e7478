package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/ui/internal/uitest"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// keyStates are console states in which every view's keys can act: lists
// with the cursor in their middle, long texts in pagers, a live run, a
// finished one. Each call builds a fresh model (models share maps).
var keyStates = []struct {
	name  string
	setup func(t *testing.T) Model
}{
	{"sites_host", func(t *testing.T) Model { return at(console(t), "1", "down", "down", "down") }},
	{"sites_cluster", func(t *testing.T) Model { return at(console(t), "1", "down") }},
	{"sites_pending_key", func(t *testing.T) Model {
		m := at(console(t), "1", "down", "down", "down")
		m.sites.SetHostState("alpha-2", HostState{Fingerprint: "SHA256:xyz", Load: -1})
		return m
	}},
	{"sites_sorted_filtered", func(t *testing.T) Model {
		return at(console(t), "1", "s", "/", "a", "enter", "down", "down")
	}},
	{"sites_detail", func(t *testing.T) Model {
		m := console(t)
		m.sites.SetHostState("alpha-2", HostState{Phase: "failed", Load: -1, Err: changedKeyError})
		return at(m, "1", "down", "down", "down", "enter", "down")
	}},
	{"network_nodes", func(t *testing.T) Model { return at(withPairs(t), "2", "down", "down", "down") }},
	{"network_pairs", func(t *testing.T) Model { return at(withPairs(t), "2", "right", "down", "down") }},
	{"network_pair_detail", func(t *testing.T) Model { return at(withPairs(t), "2", "right", "down", "enter") }},
	{"network_no_pairs", func(t *testing.T) Model { return at(console(t), "2", "down", "down") }},
	{"compose_text_field", func(t *testing.T) Model { return at(console(t), "3", "down", "down", "down") }},
	{"compose_choice", func(t *testing.T) Model { return at(console(t), "3", "end", "up", "up", "up", "up", "up") }},
	{"compose_nodes", func(t *testing.T) Model { return at(console(t), "3", "right", "down", "down", "down") }},
	{"compose_hierarchy", func(t *testing.T) Model { return at(withPairs(t), "3", "right", "down", "down", "down") }},
	{"compose_predict", func(t *testing.T) Model { return at(console(t), "3", "left") }},
	{"run_live", func(t *testing.T) Model { return at(liveRun(t, false), "4", "down", "down", "down") }},
	{"run_finished", func(t *testing.T) Model { return at(liveRun(t, true), "4", "down", "down", "down") }},
	{"run_report", func(t *testing.T) Model { return at(liveRun(t, true), "4", "o", "down") }},
	{"run_node_detail", func(t *testing.T) Model { return at(liveRun(t, true), "4", "down", "enter") }},
	{"run_events", func(t *testing.T) Model { return at(liveRun(t, false), "4", "e", "up", "up", "up") }},
	{"run_event_detail", func(t *testing.T) Model { return at(liveRun(t, false), "4", "e", "up", "enter") }},
	{"results_runs", func(t *testing.T) Model { return at(withResults(t), "5", "down", "down") }},
	{"results_detail", func(t *testing.T) Model { return at(withResults(t), "5", "enter", "down", "down") }},
	{"results_table", func(t *testing.T) Model { return at(withResults(t), "5", "down", "t") }},
}

// changedKeyError is the shape of a refused changed host key: the advice
// is at the end.
const changedKeyError = "deploy: alpha-2: ssh: handshake failed: knownhosts: key mismatch: the host key of alpha-2 " +
	"(ssh-ed25519 SHA256:AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg) differs from the one recorded in " +
	"/home/user/.ssh/known_hosts:12. Someone could be eavesdropping on you (man-in-the-middle attack), or the host " +
	"was reinstalled. If you trust the new key, remove the old one with: ssh-keygen -R alpha-2"

func console(t *testing.T) Model {
	t.Helper()
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	return send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
}

// at presses keys on m.
func at(m Model, ks ...string) Model { return send(m, keys(ks...)...) }

// withPairs is the console with the 8 hosts chosen in Compose (the
// default job's, as gridtui run's).
func withPairs(t *testing.T) Model {
	m := console(t)
	m = at(m, "3", "right")
	if n := len(m.compose.Chosen()); n != 8 {
		t.Fatalf("%d hosts chosen, want 8", n)
	}
	return m
}

// liveRun is the console showing a run of 8 nodes, live or finished.
func liveRun(t *testing.T, finished bool) Model {
	m := console(t)
	m.run.Start(jobs.Spec{Name: "keys", Scheme: jobs.Asynchronous})
	snaps := fakeRun(8, 3, -1)
	m.run.ApplySnapshot(snaps[1])
	for i := 0; i < 12; i++ {
		m.run.AppendLog(engine.LogEvent{At: t0.Add(100 * time.Millisecond), Node: fmt.Sprintf("node-%d", i%8+1),
			Text: "a long event " + strings.Repeat("text ", 30)})
	}
	if finished {
		m.run.ApplySnapshot(snaps[2])
		m.run.Finish(sampleReport+strings.Repeat("\nwarning: a line", 30), nil)
	}
	return m
}

func withResults(t *testing.T) Model {
	m := console(t)
	res := uitest.SampleResults()
	res.Records = append(res.Records, uitest.Record(6, jobs.Asynchronous, 64, 3.5, true)) // the newest
	m.results.SetResults(res, nil)
	return m
}

// helpBindings is every binding the help shows in m: the bar and the full
// help (whose groups hold the view's and the console's keys).
func helpBindings(m Model) []key.Binding {
	out := m.helpBar()
	for _, g := range append(m.viewHelp().FullHelp(), m.common.Keys.GlobalHelp()) {
		for _, b := range g {
			if b.Enabled() {
				out = append(out, b)
			}
		}
	}
	return out
}

// TestHelpKeysAct: every key the help lists (the bar and ?) acts: it
// changes the screen or returns a command. A key listed where it does
// nothing (g, G, pgup and pgdn in Compose were) fails.
func TestHelpKeysAct(t *testing.T) {
	for _, st := range keyStates {
		t.Run(st.name, func(t *testing.T) {
			base := st.setup(t)
			seen := map[string]bool{}
			for _, b := range helpBindings(base) {
				for _, k := range b.Keys() {
					if seen[k] || k == fmt.Sprint(base.Tab()+1) { // the tab in front
						continue
					}
					seen[k] = true
					m := st.setup(t)
					before := m.render()
					next, cmd := m.Update(keyPress(k))
					if after := next.(Model).render(); cmd == nil && after == before {
						t.Errorf("%q (%s: %s) is in the help and does nothing", k, b.Help().Key, b.Help().Desc)
					}
				}
			}
			if len(seen) < 5 {
				t.Errorf("only %d keys in the help", len(seen))
			}
		})
	}
}

// TestHelpShowsWhatActs: keys that act in one pane or state only are not
// offered where they do nothing.
func TestHelpShowsWhatActs(t *testing.T) {
	cases := []struct {
		state        string
		want, absent []string
	}{
		{"compose_text_field", []string{"enter edit field", "pgup page up", "home/g first"}, []string{"m move", "space toggle", "/ filter"}},
		{"compose_hierarchy", []string{"m move worker", "c make coordinator", "end/G last"}, []string{"space toggle", "enter edit"}},
		{"compose_predict", []string{"enter edit what-if figures"}, []string{"space toggle", "m move"}},
		{"sites_host", []string{"enter details", "d deploy selected", "/ filter"}, []string{"S reverse", "a accept", "space fold"}},
		{"sites_cluster", []string{"space fold/unfold"}, []string{"enter details"}},
		{"run_live", []string{"A abort run", "e event log", "enter details"}, []string{"o full report"}},
		{"run_finished", []string{"o full report"}, []string{"A abort"}},
		{"results_detail", []string{"esc back", "y copy", "t Table III/IV"}, []string{"/ filter"}},
	}
	for _, tc := range cases {
		t.Run(tc.state, func(t *testing.T) {
			i := slicesIndex(tc.state)
			m := keyStates[i].setup(t)
			m = send(m, tea.WindowSizeMsg{Width: 200, Height: 50})
			full := strings.Join(strings.Fields(ansiStrip(m.fullHelp())), " ")
			for _, w := range tc.want {
				if !strings.Contains(full, w) {
					t.Errorf("help lacks %q:\n%s", w, full)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(full, a) {
					t.Errorf("help offers %q:\n%s", a, full)
				}
			}
		})
	}
}

func slicesIndex(name string) int {
	for i, s := range keyStates {
		if s.name == name {
			return i
		}
	}
	panic("no key state " + name)
}
