package ui

import (
	tea "charm.land/bubbletea/v2"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestComposeListsAllProblems: with n = -5 and ε = abc both fields are
// reported (before, only ε was: "1 problem(s)"); max iterations, ε and wall
// time of 0, which the defaults would silently replace, are refused; cores
// 0 is accepted and explained on the form. Every field with a problem is
// marked ✗.
func TestComposeListsAllProblems(t *testing.T) {
	c := testCommon(80, 24)
	cases := []struct {
		name  string
		edit  map[any]string // a fixed field's id, or a parameter's name
		want  []string
		marks []any
	}{
		{name: "n and eps", edit: map[any]string{"n": "-5", "eps": "abc"},
			want: []string{`eps: "abc" is not a finite number (want > 0)`, "n: -5 is outside 1…4096"}, marks: []any{"n", "eps"}},
		{name: "zeros", edit: map[any]string{fMaxIter: "0", fWall: "0s", "eps": "0"},
			want:  []string{"Max iterations: 0 must be at least 1", "Wall time: 0 must be positive", "eps: 0 is outside > 0"},
			marks: []any{fMaxIter, fWall, "eps"}},
		{name: "negative", edit: map[any]string{fCores: "-1", fMaxIter: "-3", fAny: "-2"},
			want:  []string{"Cores per node: cores = -1 is out of range", "Max iterations: max_iterations = -3 must not be negative", "Take N nodes: -2 must not be negative"},
			marks: []any{fCores, fMaxIter, fAny}},
	}
	field := func(v *ComposeView, k any) *field {
		if name, ok := k.(string); ok {
			return v.param(name)
		}
		return v.field(k.(int))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2")
			for f, val := range tc.edit {
				field(&v, f).Value = val
			}
			v.validate()
			probs := strings.Join(v.Problems(), "\n")
			for _, w := range tc.want {
				if !strings.Contains(probs, w) {
					t.Errorf("problems\n%s\ndo not say %q", probs, w)
				}
			}
			if len(v.Problems()) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", len(v.Problems()), len(tc.want), probs)
			}
			for _, k := range tc.marks {
				if f := field(&v, k); !v.badFields[f.ID] {
					t.Errorf("field %s not marked", f.Label)
				}
			}
			if !strings.Contains(ansiStrip(v.View()), "✗") {
				t.Errorf("no field marked ✗:\n%s", ansiStrip(v.View()))
			}
		})
	}
	v := composeWith(c, inventory.Embedded(), "alpha-1")
	v.field(fCores).Value = "0"
	v.validate()
	if len(v.Problems()) != 0 || !strings.Contains(ansiStrip(v.View()), "0 = all cores") {
		t.Errorf("cores 0: problems %q, view:\n%s", v.Problems(), ansiStrip(v.View()))
	}
}

// TestComposeSaveInvalid: ctrl+s does not write a job file the job file
// reader would refuse (n = -5): it says why, naming every problem. A job
// whose file is valid but cannot run here (no route, too few nodes) is
// saved only after the user confirms.
func TestComposeSaveInvalid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.toml")
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	*m.compose = composeWith(m.common, inventory.Embedded(), "alpha-1", "alpha-2")
	m.compose.field(fFile).Value = path
	m.compose.param("n").Value = "-5"
	m.compose.param("eps").Value = "abc"
	m.compose.validate()
	m = send(m, keys("3")...)
	m = runCmds(m, keyPress("ctrl+s"))
	if _, err := os.Stat(path); err == nil {
		t.Fatal("ctrl+s wrote a job file that fails validation")
	}
	for _, w := range []string{"not saved", "n: -5 is outside 1…4096", `"abc" is not a finite number`} {
		if !strings.Contains(m.compose.status, w) {
			t.Errorf("status %q does not say %q", m.compose.status, w)
		}
	}
	// Valid as a file, not runnable as chosen: asks first.
	m.compose.param("n").Value, m.compose.param("eps").Value, m.compose.field(fAny).Value = "32", "1e-8", "3"
	m.compose.validate()
	m = runCmds(m, keyPress("ctrl+s"))
	if m.confirm == nil || !strings.Contains(m.confirm.question, "not enough nodes") {
		t.Fatalf("ctrl+s on a job that cannot run here did not ask first: %+v", m.confirm)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("written before the user confirmed")
	}
	m = runCmds(m, keyPress("y"))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("not written after y: %v (status %q)", err, m.compose.status)
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
	if got := m.compose.param("n").Value; got != "140" {
		t.Fatalf("n after ←, 0, home, 1, end, backspace = %q, want 140", got)
	}
	m = send(m, keys("down", "enter", "ctrl+u")...) // ε: cleared, then pasted
	m = send(m, tea.PasteMsg{Content: "1e-9"})
	m = send(m, keys("home", "right")...)
	cur := m.View().Cursor
	eps := m.compose.row(m.compose.param("eps").ID)
	if cur == nil || cur.Position.X != 20 || cur.Position.Y != 1+1+eps {
		t.Errorf("terminal cursor %+v, want the field's second character at x 20, y %d", cur, 2+eps)
	}
	m = send(m, keys("enter")...)
	if got := m.compose.param("eps").Value; got != "1e-9" {
		t.Fatalf("ε after ctrl+u and a paste of 1e-9 = %q", got)
	}
	if m.View().Cursor != nil {
		t.Error("the terminal cursor stays shown after the edit")
	}
}
