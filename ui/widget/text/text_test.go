package text

import (
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestCellWidth(t *testing.T) {
	for name, s := range map[string]string{
		"ascii":     "hello world",
		"sgr":       "\x1b[1;38;5;42mA\x1b[m i \x1b[31mX\x1b[0m",
		"unicode":   "σ trend ▁▂█ ↔ ◆",
		"mixed":     "\x1b[7m› alpha-1 ↔ beta\x1b[m",
		"wide":      "⚡界",
		"control":   "a\tb",
		"osc":       "\x1b]0;title\x07x",
		"empty":     "",
		"trailing":  "abc\x1b[",
		"symbols":   "│┤─└▸›‹•…·◆▾█░▁▂▃▄▅▆▇ ≠ ← → ↔ ε σ é ñ × ✓ ✗ ★ ● ▲ ▼",
		"combining": "e\u0301x",
		"zwj":       "a\u200db",
	} {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("%s: Width(%q) = %d, ansi.StringWidth = %d", name, s, got, want)
		}
	}
}

// TestNarrowRunes checks every rune Narrow claims against the
// reference width.
func TestNarrowRunes(t *testing.T) {
	for r := rune(0x80); r < 0x3000; r++ {
		if Narrow(r) && utf8.ValidRune(r) {
			if w := ansi.StringWidth("a" + string(r) + "b"); w != 3 {
				t.Errorf("Narrow(%U %q) but its width is %d", r, r, w-2)
			}
		}
	}
}
