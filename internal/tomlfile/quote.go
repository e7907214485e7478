package tomlfile

import (
	"unicode/utf8"

	"github.com/gridtui/gridtui/internal/termsafe"
)

// needsQuote reports whether r, echoed to a terminal, could do more than
// print (termsafe.Unsafe).
func needsQuote(r rune) bool { return termsafe.Unsafe(r) }

// Quote returns s with every character that could drive a terminal written
// as a Go escape (\x1b, \n, \u202e) and tabs as spaces: what an error
// message may echo of a file's line (termsafe.Line).
func Quote(s string) string { return termsafe.Line(s) }

// QuoteMessage is Quote for a whole message, which keeps its newlines
// (termsafe.Text).
func QuoteMessage(s string) string { return termsafe.Text(s) }

// Excerpt returns a file's line for an error message, quoted, and the
// number of characters before column col (1-based, in bytes of line) in the
// quoted text: where the caret goes.
func Excerpt(line string, col int) (text string, pad int) {
	cut := min(max(col-1, 0), len(line))
	return Quote(line), utf8.RuneCountInString(Quote(line[:cut]))
}
