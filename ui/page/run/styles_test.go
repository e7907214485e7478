package run

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/ui/common"
)

// TestEveryNodeStateShown: every engine.NodeState has its own glyph (one
// cell, so the grid stays aligned; distinct, so no state depends on colour),
// a style, a grid cell and a place in the Run view's counts. It fails when
// the engine appends a state the console's arrays do not hold.
func TestEveryNodeStateShown(t *testing.T) {
	if name := engine.NodeState(nodeStates).String(); name != "unknown" {
		t.Fatalf("the engine has a state %q past the %d the console knows (nodeStates)", name, nodeStates)
	}
	s := common.DefaultStyles()
	cells := s.StateCells()
	seen := map[string]engine.NodeState{}
	counted := map[engine.NodeState]int{}
	for _, st := range countedStates {
		counted[st]++
	}
	for i := 0; i < nodeStates; i++ {
		st := engine.NodeState(i)
		g := stateGlyph(st)
		if g == "?" || ansi.StringWidth(g) != 1 {
			t.Errorf("state %s: glyph %q, want one cell of its own", st, g)
		}
		if other, dup := seen[g]; dup {
			t.Errorf("states %s and %s share the glyph %q", other, st, g)
		}
		seen[g] = st
		if got := ansi.Strip(cells[st]); got != g+" " {
			t.Errorf("state %s: grid cell %q, want %q", st, got, g+" ")
		}
		if counted[st] != 1 {
			t.Errorf("state %s is counted %d times in the Run view's counts, want once", st, counted[st])
		}
		if !strings.Contains(s.StateStyle(st).Render(g), g) {
			t.Errorf("state %s: style drops the glyph", st)
		}
	}
}
