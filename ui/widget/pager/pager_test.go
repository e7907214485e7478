package pager

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestPager: prose wraps to the width, a table line stays whole and scrolls
// sideways, the moves are enabled only when the text does not fit, esc
// closes and y copies.
func TestPager(t *testing.T) {
	p := New("Title", "one two three four five six seven\nname  cores  load  a-very-long-column-of-a-table")
	lines := p.Render(20, 6)
	if len(lines) != 6 || ansi.Strip(lines[0]) != "Title"+strings.Repeat(" ", 15) {
		t.Fatalf("render: %q", lines)
	}
	if got := ansi.Strip(lines[1]); !strings.HasPrefix(got, "one two three four") {
		t.Errorf("prose not wrapped: %q", got)
	}
	b := p.Bindings(20, 6)
	if !b.Right.Enabled() || b.Left.Enabled() {
		t.Errorf("a wide table line: right %v, left %v", b.Right.Enabled(), b.Left.Enabled())
	}
	if ok, _ := p.Update(tea.KeyPressMsg{Code: tea.KeyRight}, 20, 6); !ok || p.Shift != 10 {
		t.Errorf("→: consumed %v, shift %d", ok, p.Shift)
	}
	if ok, cmd := p.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}, 20, 6); !ok || cmd == nil {
		t.Error("y did not copy")
	}
	if ok, _ := p.Update(tea.KeyPressMsg{Code: tea.KeyEscape}, 20, 6); !ok || p.Open {
		t.Error("esc did not close the pager")
	}
}
