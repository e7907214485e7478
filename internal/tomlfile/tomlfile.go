// Package tomlfile decodes the project's TOML files (sites.toml, job files,
// study matrices) strictly and locates problems in them: every decoding
// error, and every semantic error found afterwards, becomes a Problem with
// its line, column, indexed key path ("site[1].cluster[0].cores") and the
// offending line, so that each file type can render file:line:col errors.
package tomlfile

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Problem is one located problem in a TOML document. Line and Col are
// 1-based and zero when unknown.
type Problem struct {
	Line, Col int
	Key       string // indexed key path, or go-toml's dotted key; may be empty
	Unknown   bool   // the key is not part of the file format
	Control   bool   // a string holds a control character; the rest decoded
	Msg       string // what is wrong, without position or key
	Text      string // the offending line, when known
}

// Decode decodes data into v, refusing unknown keys and strings (keys or
// values) that hold control characters. On failure it returns one Problem
// per unknown key and per such string, or the single syntax or type problem.
func Decode(data []byte, v any) []Problem {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return controlChars(data)
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		ps := make([]Problem, len(strict.Errors))
		for i := range strict.Errors {
			ps[i] = problem(data, &strict.Errors[i], "unknown key")
			ps[i].Unknown = true
		}
		return append(ps, controlChars(data)...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		return []Problem{problem(data, de, plainMessage(de.Error()))}
	}
	return []Problem{{Msg: err.Error()}}
}

func problem(data []byte, de *toml.DecodeError, msg string) Problem {
	line, col := de.Position()
	return Problem{Line: line, Col: col, Key: indexedKey(data, line, de.Key()), Msg: msg, Text: Line(data, line)}
}

// At returns a Problem for a semantic error about the key path (indexed,
// "group[1].coordinator"), positioned at the key, or at the closest
// enclosing table the document writes, or unpositioned.
func At(data []byte, path, msg string) Problem {
	pos := Positions(data)
	for p := path; p != ""; p = parent(p) {
		if lc, ok := pos[p]; ok {
			return Problem{Line: lc[0], Col: lc[1], Key: path, Msg: msg, Text: Line(data, lc[0])}
		}
	}
	return Problem{Key: path, Msg: msg}
}

// Written reports whether the document sets the key path explicitly.
func Written(data []byte, path string) bool {
	_, ok := Positions(data)[path]
	return ok
}

// parent drops the last component of a key path: "a[0].b" -> "a[0]"; an
// array element ("a[0]") has no parent worth pointing at.
func parent(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Line returns the 1-based line of data without its line ending, or "".
func Line(data []byte, row int) string {
	lines := bytes.Split(data, []byte("\n"))
	if row < 1 || row > len(lines) {
		return ""
	}
	return strings.TrimRight(string(lines[row-1]), "\r")
}

// indexedKey returns the key path of the key written on line, with array
// indexes, falling back to go-toml's unindexed key when the line holds none.
func indexedKey(data []byte, line int, k toml.Key) string {
	best := ""
	for path, lc := range Positions(data) {
		if lc[0] == line && len(path) > len(best) {
			best = path
		}
	}
	if best == "" {
		return strings.Join(k, ".")
	}
	return best
}

// mismatch matches go-toml's type-mismatch message, which names Go types.
var mismatch = regexp.MustCompile(`cannot decode TOML (\w+) into .* of type (.+)$`)

// plainMessage rewords go-toml messages for a user who writes TOML, not Go.
func plainMessage(s string) string {
	s = strings.TrimPrefix(s, "toml: ")
	m := mismatch.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	want := m[2]
	switch {
	case strings.HasPrefix(want, "int"), strings.HasPrefix(want, "uint"):
		want = "an integer"
	case want == "string":
		want = "a string"
	case strings.HasPrefix(want, "[]"):
		want = "an array"
	case want == "bool":
		want = "true or false"
	case strings.HasPrefix(want, "float"):
		want = "a number"
	case strings.Contains(want, "."):
		want = "a table"
	}
	return fmt.Sprintf("wrong type: got a TOML %s, want %s", m[1], want)
}
