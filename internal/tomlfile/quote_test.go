package tomlfile

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	tests := map[string]struct{ in, want, msg string }{
		"plain":       {"cores = 4", "cores = 4", "cores = 4"},
		"escape":      {"name = \"\x1b]0;pwned\x07\"", `name = "\x1b]0;pwned\x07"`, `name = "\x1b]0;pwned\x07"`},
		"clear":       {"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		"tab":         {"a\tb", "a b", "a b"},
		"newline":     {"a\nb", `a\nb`, "a\nb"},
		"return":      {"a\rb", `a\rb`, `a\rb`},
		"del and c1":  {"a\x7fb\u009bc", `a\x7fb\u009bc`, `a\x7fb\u009bc`},
		"bidi":        {"a\u202eb", `a\u202eb`, `a\u202eb`},
		"invalid":     {"a\xffb", `a\xffb`, `a\xffb`},
		"unicode ok":  {"ε = 1e-8 ↔", "ε = 1e-8 ↔", "ε = 1e-8 ↔"},
		"backslashes": {`a\x1b`, `a\x1b`, `a\x1b`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Quote(tc.in); got != tc.want {
				t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := QuoteMessage(tc.in); got != tc.msg {
				t.Errorf("QuoteMessage(%q) = %q, want %q", tc.in, got, tc.msg)
			}
		})
	}
}

func TestExcerptCaret(t *testing.T) {
	line := "name = \"\x1b[31mx\" # ε"
	text, pad := Excerpt(line, 14) // the x after the sequence
	if strings.ContainsRune(text, 0x1b) || text[pad] != 'x' && []rune(text)[pad] != 'x' {
		t.Errorf("Excerpt(%q, 14) = %q, caret at %d", line, text, pad)
	}
}

// FuzzQuote checks that nothing Quote or QuoteMessage returns can drive a
// terminal: no control characters (but newlines in messages), valid UTF-8.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"\x1b]0;title\x07", "\x1b[2J", "a\tb\r\n", "\u009b31m", "\xff\xfe", "ε"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, q := range []string{Quote(s), QuoteMessage(s)} {
			if !utf8.ValidString(q) {
				t.Fatalf("quote of %q is not UTF-8: %q", s, q)
			}
			for _, r := range q {
				if r != '\n' && needsQuote(r) {
					t.Fatalf("quote of %q keeps %U: %q", s, r, q)
				}
			}
		}
		if strings.ContainsRune(Quote(s), '\n') {
			t.Fatalf("Quote(%q) keeps a newline", s)
		}
	})
}
