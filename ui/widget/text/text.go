package text

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Width is the display width of s. Text made of ASCII, SGR/CSI escapes
// and the narrow symbols the console draws (box drawing, blocks, arrows,
// Greek, Latin-1) is measured by a byte scan; anything else goes through
// the grapheme-aware ansi.StringWidth. A frame of 1024 nodes measures
// hundreds of lines, so this matters (see BenchmarkRunView1024).
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !Narrow(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
			continue
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case c == 0x1b:
			return ansi.StringWidth(s)
		case c >= 0x20 && c < 0x7f:
			n++
		}
		i++
	}
	return n
}

// Narrow reports runes known to be one cell wide and to stand alone
// (no combining marks, joiners or emoji presentation).
func Narrow(r rune) bool {
	switch {
	case r >= 0xa0 && r <= 0x2ff && r != 0xad:
		return true
	case r >= 0x370 && r <= 0x3ff: // Greek (σ, ε)
		return true
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e: // punctuation (…, •, ‹›)
		return true
	case r >= 0x2190 && r <= 0x21ff, r >= 0x2200 && r <= 0x22ff: // arrows, math
		return true
	case r >= 0x2500 && r <= 0x25fc: // box drawing, blocks, geometric shapes (25FD/E are emoji)
		return true
	}
	return false
}

// PadRight truncates or pads s (which may hold ANSI) to exactly w cells.
func PadRight(s string, w int) string {
	sw := Width(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// PadLeft is PadRight aligned right.
func PadLeft(s string, w int) string {
	sw := Width(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return strings.Repeat(" ", w-sw) + s
}

// Fit makes s exactly w cells wide.
func Fit(s string, w int) string { return PadRight(s, w) }
