package inventory

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// ConfigError is a problem in an inventory or job file. Line and Col are
// 1-based and zero when unknown; Key is the key path, e.g.
// "site[0].cluster[1].cores".
type ConfigError struct {
	File      string
	Line, Col int
	Key       string
	Msg       string
	// Context is the offending line followed by a line with a marker under
	// the column, when the position is known.
	Context string
}

// Error renders "file:line:col: key: message" and, on the next lines, the
// offending line with a marker. Control characters from the file are quoted
// (\x1b): an error must not drive the terminal it is printed on.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(tomlfile.Quote(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(tomlfile.Quote(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(tomlfile.QuoteMessage(e.Msg))
	if e.Context != "" {
		b.WriteString("\n")
		b.WriteString(e.Context)
	}
	return b.String()
}

// newConfigError builds a ConfigError with the context line of data.
func newConfigError(file string, data []byte, line, col int, key, msg string) *ConfigError {
	return &ConfigError{File: file, Line: line, Col: col, Key: key, Msg: msg, Context: contextLine(data, line, col)}
}

// contextLine returns the 1-based line of data, quoted, with a caret under
// col.
func contextLine(data []byte, line, col int) string {
	if line < 1 {
		return ""
	}
	lines := bytes.Split(data, []byte("\n"))
	if line > len(lines) {
		return ""
	}
	text, pad := tomlfile.Excerpt(strings.TrimRight(string(lines[line-1]), "\r"), col)
	prefix := fmt.Sprintf("%5d | ", line)
	return prefix + text + "\n" + strings.Repeat(" ", len(prefix)-2) + "| " + strings.Repeat(" ", pad) + "^"
}

// fromProblem renders a located problem of file as a ConfigError.
func fromProblem(file string, data []byte, p tomlfile.Problem) *ConfigError {
	return newConfigError(file, data, p.Line, p.Col, p.Key, p.Msg)
}
