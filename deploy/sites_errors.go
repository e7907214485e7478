package deploy

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
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
// offending line with a marker.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
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

// contextLine returns the 1-based line of data with a caret under col.
func contextLine(data []byte, line, col int) string {
	if line < 1 {
		return ""
	}
	lines := bytes.Split(data, []byte("\n"))
	if line > len(lines) {
		return ""
	}
	text := strings.TrimRight(string(lines[line-1]), "\r")
	text = strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		return r
	}, text)
	prefix := fmt.Sprintf("%5d | ", line)
	pad := max(col-1, 0)
	return prefix + text + "\n" + strings.Repeat(" ", len(prefix)-2) + "| " + strings.Repeat(" ", pad) + "^"
}

// indexedKey returns the key path of the key written on line, with array
// indexes ("site[1].cluster[0].cores"), falling back to go-toml's unindexed
// key when the line holds no key.
func indexedKey(data []byte, line int, k toml.Key) string {
	best := ""
	for path, lc := range indexPositions(data) {
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
	if m := mismatch.FindStringSubmatch(s); m != nil {
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
	return s
}

// keyPositions maps key paths ("site[1].cluster[0].cores", "site[1]") to the
// 1-based line and column where they are written, so that semantic errors
// found after decoding can point at the file too. It relies on go-toml's
// unstable parser, which reports byte ranges.
type keyPositions map[string][2]int

func indexPositions(data []byte) keyPositions {
	pos := keyPositions{}
	var p unstable.Parser
	p.Reset(data)
	counts := map[string]int{} // array-table path -> occurrences so far
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			path := arrayPath(keyParts(e), counts, e.Kind == unstable.ArrayTable)
			table = path
			if sh, ok := shapeOf(&p, e); ok {
				pos[path] = [2]int{sh.Start.Line, sh.Start.Column}
			}
		case unstable.KeyValue:
			path := strings.Join(keyParts(e), ".")
			if table != "" {
				path = table + "." + path
			}
			if sh, ok := shapeOf(&p, e); ok {
				pos[path] = [2]int{sh.Start.Line, sh.Start.Column}
			}
		}
	}
	return pos // a parse error stops the index early; decoding reports it
}

// arrayPath turns a table header's key into an indexed path: the header
// [[site.cluster]] after two [[site]] and one [[site.cluster]] under the
// second is "site[1].cluster[1]".
func arrayPath(parts []string, counts map[string]int, isArray bool) string {
	path := ""
	for i, part := range parts {
		if path != "" {
			path += "."
		}
		base := path + part
		last := i == len(parts)-1
		switch {
		case last && isArray:
			n := counts[base]
			counts[base] = n + 1
			path = fmt.Sprintf("%s[%d]", base, n)
		case counts[base] > 0:
			path = fmt.Sprintf("%s[%d]", base, counts[base]-1)
		default:
			path = base
		}
	}
	return path
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	it := n.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func shapeOf(p *unstable.Parser, n *unstable.Node) (unstable.Shape, bool) {
	if n.Raw.Length > 0 {
		return p.Shape(n.Raw), true
	}
	if first := n.Child(); first != nil && first.Raw.Length > 0 {
		return p.Shape(first.Raw), true
	}
	return unstable.Shape{}, false
}
