package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r, echoed to a terminal, could do more than print:
// C0 and C1 controls (escape sequences start with ESC or CSI), DEL, line and
// paragraph separators, the bidirectional overrides and isolates that
// reorder what is shown, and the replacement of an invalid byte.
func Unsafe(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == utf8.RuneError
}

// Text returns s with every character that could drive a terminal written
// as a Go escape (\x1b, \r, \u202e), tabs as one space and invalid UTF-8
// bytes as \xNN; newlines are kept. It returns s itself when s is already
// safe, so a clean string costs one scan.
func Text(s string) string { return clean(s, true) }

// Line is Text for a string that must stay on one line (a name, a table
// cell, a log line): a newline is written \n too.
func Line(s string) string { return clean(s, false) }

// Safe reports whether s prints as itself: Text(s) == s.
func Safe(s string) bool {
	for _, r := range s {
		if r != '\n' && Unsafe(r) {
			return false
		}
	}
	return true
}

// Error returns err with its message made safe by Text (nil stays nil); the
// original stays reachable through errors.Is and errors.As.
func Error(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*safeError); ok || Safe(err.Error()) {
		return err
	}
	return &safeError{err: err}
}

type safeError struct{ err error }

func (e *safeError) Error() string { return Text(e.err.Error()) }
func (e *safeError) Unwrap() error { return e.err }

// First returns the position (a rune index and the rune) of the first
// character of s that Text would escape, newlines included, and ok = false
// when there is none: what a parser names when it refuses a name.
func First(s string) (index int, r rune, ok bool) {
	n := 0
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return n, rune(s[i]), true
			}
		}
		if Unsafe(r) {
			return n, r, true
		}
		n++
	}
	return 0, 0, false
}

func clean(s string, keepNewlines bool) string {
	safe := true
	for _, r := range s {
		if Unsafe(r) && !(keepNewlines && r == '\n') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
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
		case Unsafe(r) && r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
