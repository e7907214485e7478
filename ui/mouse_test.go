package ui

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// clickOn clicks the first screen cell showing text (after line from), as
// the terminal reports a left click, and returns the model.
func clickOn(t *testing.T, m Model, text string, from int) Model {
	t.Helper()
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	for y := from; y < len(lines); y++ {
		if x := strings.Index(lines[y], text); x >= 0 {
			return send(m, tea.MouseClickMsg{X: ansi.StringWidth(lines[y][:x]), Y: y, Button: tea.MouseLeft})
		}
	}
	t.Fatalf("no %q on screen:\n%s", text, strings.Join(lines, "\n"))
	return m
}

// TestClickSelectsRow: a left click on a row of any list moves that list's
// cursor there (and focuses its pane), at both sizes.
func TestClickSelectsRow(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T) Model
		click string
		check func(m Model) string // "" when the clicked row is selected
	}{
		{"sites", func(t *testing.T) Model { return at(console(t), "1") }, "beta-3", func(m Model) string {
			r, _ := m.sites.Selected()
			return want(r.Key, "host/beta-3")
		}},
		{"network_nodes", func(t *testing.T) Model { return at(withPairs(t), "2", "right") }, "alpha-3 ", func(m Model) string {
			r, focus := m.network.Selected()
			return want(r.Key, "alpha-3") + want(fmt.Sprint(focus), "0")
		}},
		{"network_pairs", func(t *testing.T) Model { return at(withPairs(t), "2") }, "alpha-3 ↔ alpha-4", func(m Model) string {
			r, focus := m.network.Selected()
			return want(r.Key, "alpha-3↔alpha-4") + want(fmt.Sprint(focus), "1")
		}},
		{"compose_field", func(t *testing.T) Model { return at(console(t), "3") }, "Wall time", func(m Model) string {
			return want(m.compose.Focus(), fmt.Sprint("form ", m.compose.Row("wall_time")))
		}},
		{"compose_node", func(t *testing.T) Model { return at(console(t), "3") }, "beta-2", func(m Model) string {
			return want(m.compose.Focus(), "nodes 7")
		}},
		{"compose_worker", func(t *testing.T) Model { return at(withPairs(t), "3", "left") }, "└ alpha-3", func(m Model) string {
			return want(m.compose.Focus(), "hierarchy alpha-3")
		}},
		{"compose_predict_nodes", func(t *testing.T) Model { return at(console(t), "3") }, "(the job's)", func(m Model) string {
			return want(m.compose.Focus(), "predict 0")
		}},
		{"run_nodes", func(t *testing.T) Model { return at(liveRun(t, false), "4") }, "node-6 ", func(m Model) string {
			r, _ := m.run.Selected()
			return want(r.Key, "node-6")
		}},
		{"run_events", func(t *testing.T) Model { return at(liveRun(t, false), "4", "e") }, "node-3 ", func(m Model) string {
			r, _ := m.run.Selected()
			return want(r.Cells[1], "node-3")
		}},
		{"results", func(t *testing.T) Model { return at(withResults(t), "5") }, "hybrid ", func(m Model) string {
			r, _ := m.results.SelectedRecord()
			return want(r.Job.Name, uitest.SampleApp+"-n48-hybrid")
		}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				m := send(tc.setup(t), tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				m = clickOn(t, m, tc.click, 1)
				if msg := tc.check(m); msg != "" {
					t.Error(msg)
				}
			})
		}
	}
}

func want(got, w string) string {
	if got != w {
		return fmt.Sprintf("selected %q, want %q; ", got, w)
	}
	return ""
}

// TestClickIgnoredUnderDialogs: a click does not reach the list behind a
// question, the full help or a detail view, nor one outside the rows.
func TestClickIgnoredUnderDialogs(t *testing.T) {
	m := at(console(t), "1")
	m.confirm = &confirmation{question: "sure?"}
	if m = clickOn(t, m, "alpha-3", 1); m.sites.Cursor() != 0 {
		t.Error("a click under a question moved the cursor")
	}
	m = at(console(t), "1", "down", "down", "enter") // alpha-1's details
	if m = clickOn(t, m, "deploy:", 2); !m.sites.Paging() || m.sites.Cursor() != 2 {
		t.Error("a click on a detail view acted on the list behind it")
	}
	m = at(console(t), "1")
	m = send(m, tea.MouseClickMsg{X: 2, Y: 1, Button: tea.MouseLeft}) // the title line
	if m.sites.Cursor() != 0 {
		t.Error("a click on the title moved the cursor")
	}
	if v := m.View(); v.MouseMode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode %v with no detail open", v.MouseMode)
	}
	if v := at(m, "down", "down", "enter").View(); v.MouseMode != tea.MouseModeNone {
		t.Error("the mouse is not released to the terminal while a detail view is open")
	}
}

// TestClickFromTerminalBytes: the click arrives as a terminal sends it (an
// SGR mouse report on the program's input), through Bubble Tea's decoder,
// and selects the row under it; then q quits.
func TestClickFromTerminalBytes(t *testing.T) {
	m := send(console(t), tea.WindowSizeMsg{Width: 80, Height: 24})
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	y := -1
	for i, l := range lines {
		if strings.Contains(l, "beta-2 ") {
			y = i
		}
	}
	if y < 0 {
		t.Fatal("beta-2 not on screen")
	}
	in, feed := io.Pipe()
	scr := &screenText{}
	p := tea.NewProgram(screenModel{Model: m, last: scr}, tea.WithInput(in), tea.WithOutput(io.Discard),
		tea.WithWindowSize(80, 24), tea.WithoutSignals())
	done := make(chan tea.Model, 1)
	go func() {
		final, err := p.Run()
		if err != nil {
			t.Error(err)
		}
		done <- final
	}()
	waitScreen(t, scr, "8 of 8")
	// SGR reports count from 1: press and release of the left button.
	fmt.Fprintf(feed, "\x1b[<0;%d;%dM\x1b[<0;%d;%dm", 10, y+1, 10, y+1)
	deadline := time.Now().Add(30 * time.Second)
	for !cursorOn(scr, "beta-2") {
		if time.Now().After(deadline) {
			p.Kill()
			t.Fatalf("the cursor never reached beta-2:\n%s", scr.text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprint(feed, "q")
	var final tea.Model
	select {
	case final = <-done:
	case <-time.After(30 * time.Second):
		p.Kill()
		t.Fatal("the program did not quit")
	}
	feed.Close()
	sites := final.(screenModel).sites
	if r, _ := sites.Selected(); r.Key != "host/beta-2" {
		t.Errorf("the click selected %q, want host/beta-2", r.Key)
	}
}

// cursorOn reports whether the screen's cursor row (marked ›) shows text.
func cursorOn(scr *screenText, text string) bool {
	scr.mu.Lock()
	defer scr.mu.Unlock()
	for _, l := range strings.Split(scr.text, "\n") {
		if strings.HasPrefix(l, "›") && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
