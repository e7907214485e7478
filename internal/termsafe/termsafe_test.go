package termsafe

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := map[string]struct{ in, line, text string }{
		"plain":       {"cores = 4", "cores = 4", "cores = 4"},
		"title":       {"name = \"\x1b]0;pwned\x07\"", `name = "\x1b]0;pwned\x07"`, `name = "\x1b]0;pwned\x07"`},
		"clear":       {"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		"red":         {"\u001b[31mred", `\x1b[31mred`, `\x1b[31mred`},
		"tab":         {"a\tb", "a b", "a b"},
		"newline":     {"a\nb", `a\nb`, "a\nb"},
		"return":      {"a\rb", `a\rb`, `a\rb`},
		"del and c1":  {"a\x7fb\u009bc", `a\x7fb\u009bc`, `a\x7fb\u009bc`},
		"bidi":        {"a\u202eb\u2066", `a\u202eb\u2066`, `a\u202eb\u2066`},
		"separators":  {"a\u2028b", `a\u2028b`, `a\u2028b`},
		"invalid":     {"a\xffb", `a\xffb`, `a\xffb`},
		"unicode ok":  {"ε = 1e-8 ↔ 東京", "ε = 1e-8 ↔ 東京", "ε = 1e-8 ↔ 東京"},
		"backslashes": {`a\x1b`, `a\x1b`, `a\x1b`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
			if Safe(tc.in) != (tc.text == tc.in) {
				t.Errorf("Safe(%q) = %v", tc.in, Safe(tc.in))
			}
		})
	}
}

func TestFirst(t *testing.T) {
	tests := map[string]struct {
		in    string
		index int
		r     rune
		ok    bool
	}{
		"clean":   {"alpha-1", 0, 0, false},
		"escape":  {"ab\x1b[31m", 2, 0x1b, true},
		"unicode": {"εa\u0007", 2, 7, true},
		"invalid": {"a\xff", 1, 0xff, true},
		"newline": {"a\n", 1, '\n', true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			i, r, ok := First(tc.in)
			if i != tc.index || r != tc.r || ok != tc.ok {
				t.Errorf("First(%q) = %d, %U, %v; want %d, %U, %v", tc.in, i, r, ok, tc.index, tc.r, tc.ok)
			}
		})
	}
}

func TestError(t *testing.T) {
	if Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
	base := fmtErr("open \x1b[2J: %w", fs.ErrNotExist)
	err := Error(base)
	if strings.ContainsRune(err.Error(), 0x1b) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Error = %q (Is ErrNotExist: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
	if Error(err) != err {
		t.Error("Error wraps a safe error twice")
	}
}

type wrapped struct {
	msg string
	err error
}

func (w wrapped) Error() string { return w.msg }
func (w wrapped) Unwrap() error { return w.err }

func fmtErr(msg string, err error) error {
	return wrapped{msg: strings.Replace(msg, "%w", err.Error(), 1), err: err}
}

// FuzzText checks that nothing Text or Line returns can drive a terminal:
// valid UTF-8, no character Unsafe (but newlines from Text), Line on one
// line; that both are idempotent; and that a safe string comes back as it
// was.
func FuzzText(f *testing.F) {
	for _, s := range []string{"\x1b]0;title\x07", "\x1b[2J", "a\tb\r\n", "\u009b31m", "\xff\xfe", "ε", "東京\u202e", "\x1bP+q\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, q := range []string{Line(s), Text(s)} {
			if !utf8.ValidString(q) {
				t.Fatalf("quote of %q is not UTF-8: %q", s, q)
			}
			for _, r := range q {
				if r != '\n' && Unsafe(r) {
					t.Fatalf("quote of %q keeps %U: %q", s, r, q)
				}
			}
		}
		if strings.ContainsRune(Line(s), '\n') {
			t.Fatalf("Line(%q) keeps a newline", s)
		}
		if Line(Line(s)) != Line(s) || Text(Text(s)) != Text(s) {
			t.Fatalf("not idempotent on %q", s)
		}
		if Safe(s) != (Text(s) == s) {
			t.Fatalf("Safe(%q) = %v but Text gives %q", s, Safe(s), Text(s))
		}
		if _, _, bad := First(s); bad == (Line(s) == s) {
			t.Fatalf("First(%q) says %v, Line gives %q", s, bad, Line(s))
		}
	})
}
