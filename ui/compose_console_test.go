package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
	"github.com/gridtui/gridtui/ui/page/compose"
)

// The Compose page's tests that need the root: it reads and writes the job
// files, asks before saving or loading, and runs the Predict panel's
// commands. The page's own tests are in ui/page/compose.

// TestComposeSaveInvalid: ctrl+s does not write a job file the job file
// reader would refuse (n = -5): it says why, naming every problem. A job
// whose file is valid but cannot run here (no route, too few nodes) is
// saved only after the user confirms.
func TestComposeSaveInvalid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.toml")
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	if h, err := grid.Htable(inventory.Embedded()); err == nil {
		m.compose.SetHtable(h)
	}
	m.compose.ClearNodes()
	m.compose.Pick(true, "alpha-1", "alpha-2")
	setValues(t, m.compose, "file", path, "params.n", "-5", "params.eps", "abc")
	m = send(m, keys("3")...)
	m = runCmds(m, keyPress("ctrl+s"))
	if _, err := os.Stat(path); err == nil {
		t.Fatal("ctrl+s wrote a job file that fails validation")
	}
	for _, w := range []string{"not saved", "n: -5 is outside 1…4096", `"abc" is not a finite number`} {
		if !strings.Contains(m.compose.Status(), w) {
			t.Errorf("status %q does not say %q", m.compose.Status(), w)
		}
	}
	// Valid as a file, not runnable as chosen: asks first.
	setValues(t, m.compose, "params.n", "32", "params.eps", "1e-8", "nodes.any", "3")
	m = runCmds(m, keyPress("ctrl+s"))
	if m.confirm == nil || !strings.Contains(m.confirm.question, "not enough nodes") {
		t.Fatalf("ctrl+s on a job that cannot run here did not ask first: %+v", m.confirm)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("written before the user confirmed")
	}
	m = runCmds(m, keyPress("y"))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("not written after y: %v (status %q)", err, m.compose.Status())
	}
}

// TestComposeFieldEditsLikeText: a form field edits like a text field: the
// cursor moves with ←/→ and home/end and typing goes where it is, ctrl+u
// deletes to its start, text pasted in the terminal is inserted, and the
// terminal's cursor is put on the field where the text goes. Before, keys
// only appended to the end (← typed nothing) and a paste was lost.
func TestComposeFieldEditsLikeText(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m = send(m, keys("3", "down", "down", "enter")...) // n, 48
	m = send(m, keys("left", "0", "home", "1")...)
	m = send(m, keys("end", "backspace", "enter")...)
	if got := value(m.compose, "params.n"); got != "140" {
		t.Fatalf("n after ←, 0, home, 1, end, backspace = %q, want 140", got)
	}
	m = send(m, keys("down", "enter", "ctrl+u")...) // ε: cleared, then pasted
	m = send(m, tea.PasteMsg{Content: "1e-9"})
	m = send(m, keys("home", "right")...)
	cur := m.View().Cursor
	eps := m.compose.Row("params.eps")
	if cur == nil || cur.Position.X != 20 || cur.Position.Y != 1+1+eps {
		t.Errorf("terminal cursor %+v, want the field's second character at x 20, y %d", cur, 2+eps)
	}
	m = send(m, keys("enter")...)
	if got := value(m.compose, "params.eps"); got != "1e-9" {
		t.Fatalf("ε after ctrl+u and a paste of 1e-9 = %q", got)
	}
	if m.View().Cursor != nil {
		t.Error("the terminal cursor stays shown after the edit")
	}
}

// TestComposeCopiesCommandLine: y in Compose puts the job's `gridtui run`
// command line on the clipboard and says so; the ready line shows it.
func TestComposeCopiesCommandLine(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m.tab = TabCompose
	next, cmd := m.Update(keyPress("y"))
	m = next.(Model)
	if cmd == nil || !strings.Contains(m.compose.Status(), "copied: gridtui run --nodes") {
		t.Fatalf("y: status %q, cmd %v", m.compose.Status(), cmd != nil)
	}
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "y copies: gridtui run") {
		t.Errorf("the ready line does not show the command line:\n%s", v)
	}
}

// TestComposeLoadAsksBeforeLosingEdits: ctrl+o with edits not saved asks
// first; without edits it loads at once.
func TestComposeLoadAsksBeforeLosingEdits(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m.tab = TabCompose
	find := func(cmd tea.Cmd) tea.Msg {
		if cmd == nil {
			return nil
		}
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				if c == nil {
					continue
				}
				switch got := c().(type) {
				case compose.LoadSpecMsg, compose.LoadConfirmMsg:
					return got
				}
			}
		}
		return msg
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	if msg := find(cmd); msg == nil {
		t.Fatal("ctrl+o did nothing")
	} else if _, ok := msg.(compose.LoadSpecMsg); !ok {
		t.Fatalf("ctrl+o on an unedited job: %T, want a load", msg)
	}
	m.compose.Pick(!m.compose.Picked("alpha-1"), "alpha-1")
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	msg := find(cmd)
	if _, ok := msg.(compose.LoadConfirmMsg); !ok {
		t.Fatalf("ctrl+o with an edit: %T, want a question", msg)
	}
	m = send(m, msg)
	if m.confirm == nil || !strings.Contains(m.confirm.question, "lose them") {
		t.Errorf("no question asked: %+v", m.confirm)
	}
}

// TestConsolePredictPanel drives the real console (teatest): the Results
// store loads, Compose's Predict panel shows the three schemes; the user
// moves to the panel and types a what-if node count; the panel predicts
// again for 32 nodes.
func TestConsolePredictPanel(t *testing.T) {
	dir := t.TempDir()
	res := uitest.TracedStore(jobs.DefaultSpec().App, 48) // the job Compose starts with
	for i := range res.Records {
		if err := jobs.Append(dir, &res.Records[i]); err != nil {
			t.Fatal(err)
		}
	}
	m := New(Config{Inventory: inventory.Embedded(), StoreDir: dir})
	scr := &screenText{}
	tm := teatest.NewTestModel(t, screenModel{Model: m, last: scr}, teatest.WithInitialTermSize(160, 48))
	sendKeys := func(ks ...string) {
		for _, k := range ks {
			tm.Send(keyPress(k))
		}
	}
	sendKeys("3")
	waitScreen(t, scr, "Predict")
	waitScreen(t, scr, "rests on 4 traced runs")
	sendKeys("left", "end", "enter", "ctrl+u") // Predict pane, the nodes row
	tm.Type("32")
	sendKeys("enter")
	waitScreen(t, scr, "32 (what-if)")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		scr.mu.Lock()
		text := scr.text
		scr.mu.Unlock()
		if strings.Contains(text, "32 (what-if)") && strings.Contains(text, "replay of traced runs, ") {
			break // predicted for 32 nodes, its time in the title
		}
		if time.Now().After(deadline) {
			t.Fatalf("the panel did not predict for 32 nodes:\n%s", text)
		}
	}
	sendKeys("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(screenModel).Model
	if out := final.compose.Predicted(); out == nil || out.Platform.Nodes() != 32 {
		t.Fatalf("final outlook %+v", out)
	}
}

// runCmds sends msg and runs the commands it returns, and theirs, feeding
// their messages back (bounded: a tick would go on forever).
func runCmds(m Model, msg any) Model {
	queue := []tea.Msg{msg}
	for i := 0; i < 20 && len(queue) > 0; i++ {
		next, cmd := m.Update(queue[0])
		queue = queue[1:]
		m = next.(Model)
		queue = append(queue, cmdMsgs(cmd)...)
	}
	return m
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

// setValues sets form fields by their job-file keys (key, value, …).
func setValues(t *testing.T, v *ComposeView, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := v.SetValue(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}

// value returns the value of the form field of a job-file key.
func value(v *ComposeView, key string) string {
	s, _ := v.Value(key)
	return s
}
