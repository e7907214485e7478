package ui

import (
	"context"
	"flag"
	"github.com/gridtui/gridtui/ui/internal/uitest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// updating reports the -update flag (defined by x/exp/golden, which
// teatest imports): rewrite the golden files under testdata/.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sizes are the terminal sizes every view is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

// requireGolden compares the ANSI-stripped rendering with
// testdata/<Test>/<case>.golden (rewritten with -update).
func requireGolden(t *testing.T, got string) {
	t.Helper()
	got = normalize(got)
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test ./ui -update)", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (run with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// normalize strips ANSI and trailing blanks, keeping one line per row.
func normalize(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
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
