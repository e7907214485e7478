package tomlfile

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/gridtui/gridtui/internal/termsafe"
)

// controlChars returns one Problem per string of the document — a key or a
// value, in arrays and inline tables too — whose text holds a character
// that could drive a terminal (termsafe.Unsafe: an escape written
// "\u001b", a bell, a newline): every name a file gives is printed on
// terminals, so none may carry one. TOML refuses these characters written
// raw, but accepts them as escapes. A syntax error stops the walk early;
// decoding reports it.
func controlChars(data []byte) []Problem {
	var ps []Problem
	var p unstable.Parser
	p.Reset(data)
	counts := map[string]int{}
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			ps = append(ps, keyControls(data, &p, e, "")...)
			table = arrayPath(keyParts(e), counts, e.Kind == unstable.ArrayTable)
		case unstable.KeyValue:
			ps = append(ps, valueControls(data, &p, e, table)...)
		}
	}
	return ps
}

// keyControls checks the parts of a key.
func keyControls(data []byte, p *unstable.Parser, e *unstable.Node, path string) []Problem {
	var ps []Problem
	it := e.Key()
	for it.Next() {
		k := it.Node()
		if pr, bad := controlProblem(data, p, k, path, "key"); bad {
			ps = append(ps, pr)
		}
	}
	return ps
}

// valueControls checks a key-value's key and its value, recursing into
// arrays and inline tables.
func valueControls(data []byte, p *unstable.Parser, e *unstable.Node, table string) []Problem {
	path := strings.Join(keyParts(e), ".")
	if table != "" {
		path = table + "." + path
	}
	ps := keyControls(data, p, e, path)
	return append(ps, nodeControls(data, p, e.Value(), path)...)
}

func nodeControls(data []byte, p *unstable.Parser, v *unstable.Node, path string) []Problem {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case unstable.String:
		if pr, bad := controlProblem(data, p, v, path, "value"); bad {
			return []Problem{pr}
		}
	case unstable.Array:
		var ps []Problem
		it := v.Children()
		for i := 0; it.Next(); i++ {
			ps = append(ps, nodeControls(data, p, it.Node(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return ps
	case unstable.InlineTable:
		var ps []Problem
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				ps = append(ps, valueControls(data, p, kv, path)...)
			}
		}
		return ps
	}
	return nil
}

// controlProblem locates the first unsafe character of a string node.
func controlProblem(data []byte, p *unstable.Parser, n *unstable.Node, path, what string) (Problem, bool) {
	i, r, bad := termsafe.First(string(n.Data))
	if !bad {
		return Problem{}, false
	}
	pr := Problem{Key: path, Control: true, Msg: fmt.Sprintf("the %s %q holds a control character (%U, character %d): "+
		"names are printed on terminals, so none may hold one", what, string(n.Data), r, i+1)}
	if sh, ok := shapeOf(p, n); ok {
		pr.Line, pr.Col = sh.Start.Line, sh.Start.Column
		pr.Text = Line(data, pr.Line)
	}
	return pr, true
}
