package tomlfile

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// needsQuote reports whether r, echoed to a terminal, could do more than
// print: C0 and C1 controls (escape sequences start with ESC or CSI), DEL,
// line and paragraph separators, and the bidirectional overrides that
// reorder what is shown.
func needsQuote(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == utf8.RuneError
}

// Quote returns s with every character that could drive a terminal written
// as a Go escape (\x1b, \n, \u202e) and tabs as spaces: what an error
// message may echo of a file's line. Invalid UTF-8 bytes become \xNN.
func Quote(s string) string {
	return quote(s, false)
}

// QuoteMessage is Quote for a whole message, which keeps its newlines.
func QuoteMessage(s string) string {
	return quote(s, true)
}

func quote(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if needsQuote(r) && !(keepNewlines && r == '\n') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte(' ')
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case needsQuote(r) && r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsQuote(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Excerpt returns a file's line for an error message, quoted, and the
// number of characters before column col (1-based, in bytes of line) in the
// quoted text: where the caret goes.
func Excerpt(line string, col int) (text string, pad int) {
	cut := min(max(col-1, 0), len(line))
	return Quote(line), utf8.RuneCountInString(Quote(line[:cut]))
}
