package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// TestDetailViews: enter on a row of every list shows the row whole,
// wrapped to the width; the screens are goldens at 80×24 and 160×48.
func TestDetailViews(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T) Model
		// want are texts the detail must show whole (on one line once
		// the wrapped lines are joined).
		want []string
	}{
		{name: "sites_changed_key", setup: func(t *testing.T) Model {
			m := console(t)
			m.sites.SetHostState("alpha-2", HostState{Phase: "failed", Load: -1, Err: changedKeyError})
			return at(m, "1", "down", "down", "down", "enter")
		}, want: []string{"Host alpha-2", "If you trust the new key, remove the old one with: ssh-keygen -R alpha-2"}},
		{name: "network_pair", setup: func(t *testing.T) Model { return at(withPairs(t), "2", "right", "down", "down", "down", "enter") }, want: []string{
			"Pair alpha-4 ↔ beta-1", "addresses: 127.16.64.13 ↔ 127.16.34.20", "reason: alpha-4 ↔ beta-1:"}},
		{name: "network_node", setup: func(t *testing.T) Model { return at(withPairs(t), "2", "down", "enter") }, want: []string{
			"Node alpha-2", "ethernet: 127.16.64.11", "fast network: infiniband 127.18.64.11"}},
		{name: "run_failed_node", setup: func(t *testing.T) Model {
			m := console(t)
			m.run.Start(jobs.Spec{Name: "failing", Scheme: jobs.Asynchronous})
			s := fakeRun(8, 4, 3)[3]
			s.Nodes[3].Err = "heartbeat lost: no message from node-4 for 3s (last seen iterating at 00:01.2); " +
				"its worker was stopped and the run stopped everywhere"
			m.run.ApplySnapshot(s)
			m.run.AppendLog(engine.LogEvent{At: t0.Add(1200 * time.Millisecond), Node: "node-4", Text: "failed: heartbeat lost"})
			return at(m, "4", "down", "down", "down", "enter")
		}, want: []string{"Node node-4", "its worker was stopped and the run stopped everywhere", "failed: heartbeat lost"}},
		{name: "results_run_sideways", setup: func(t *testing.T) Model { return at(withResults(t), "5", "down", "down", "enter", "right") },
			want: []string{"Run 20261121T180400Z-000004", "send s wait s error", "1.300 s"}},
		{name: "run_event_log", setup: func(t *testing.T) Model { return at(liveRun(t, false), "4", "e") }, want: []string{"12 of 12"}},
		{name: "run_event", setup: func(t *testing.T) Model { return at(liveRun(t, false), "4", "e", "enter") }, want: []string{
			"Event", "a long event " + strings.TrimSpace(strings.Repeat("text ", 30))}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				m := send(tc.setup(t), tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				out := m.render()
				if n := strings.Count(out, "\n") + 1; n != sz.h {
					t.Errorf("screen has %d lines, want %d", n, sz.h)
				}
				for i, l := range strings.Split(out, "\n") {
					if w := widthOf(l); w > sz.w {
						t.Errorf("line %d is %d cells wide: %q", i, w, ansiStrip(l))
					}
				}
				joined := strings.Join(strings.Fields(ansiStrip(out)), " ")
				for _, w := range tc.want {
					if !strings.Contains(joined, w) {
						t.Errorf("the detail does not show %q whole:\n%s", w, ansiStrip(out))
					}
				}
				requireGolden(t, out)
			})
		}
	}
}

// TestDetailCopySays: y in a detail view puts its text on the clipboard and
// says so on the status line (OSC 52 has no answer: before, y was silent).
func TestDetailCopySays(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m = send(m, keys("1", "down", "down", "enter")...) // alpha-1's detail
	m = runCmds(m, keyPress("y"))
	if !strings.Contains(m.status, "copied 4 lines to the clipboard") {
		t.Errorf("status after y: %q", m.status)
	}
}
