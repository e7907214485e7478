package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// updating reports the -update flag: rewrite the golden files under testdata/.
func updating() bool { return uitest.Updating() }

// sizes are the terminal sizes every view is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

// requireGolden compares the ANSI-stripped rendering with
// testdata/<Test>/<case>.golden (rewritten with -update).
func requireGolden(t *testing.T, got string) {
	t.Helper()
	uitest.RequireGolden(t, got)
}

// normalize strips ANSI and trailing blanks, keeping one line per row.
func normalize(s string) string {
	return uitest.Normalize(s)
}

// checkSize asserts the rendering fits the body area exactly.
func checkSize(t *testing.T, c *Common, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != c.BodyHeight() {
		t.Errorf("rendered %d lines, want the body height %d", len(lines), c.BodyHeight())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > c.Width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, c.Width, ansi.Strip(l))
		}
	}
}

func testCommon(w, h int) *Common { return NewCommon(context.Background(), w, h, nil) }

// bigInventory is a two-site inventory of n local hosts in clusters of 64
// (uitest.BigInventory).
func bigInventory(n int) *inventory.Inventory { return uitest.BigInventory(n) }

func ansiStrip(s string) string { return ansi.Strip(s) }
