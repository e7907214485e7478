package tomlfile

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Positions maps the key paths a document writes ("site[1].cluster[0].cores",
// "site[1]") to their 1-based line and column, using go-toml's unstable
// parser, which reports byte ranges. A syntax error stops the index early;
// decoding reports it.
func Positions(data []byte) map[string][2]int {
	pos := map[string][2]int{}
	var p unstable.Parser
	p.Reset(data)
	counts := map[string]int{} // array-table path -> elements so far
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			table = arrayPath(keyParts(e), counts, e.Kind == unstable.ArrayTable)
			if sh, ok := shapeOf(&p, e); ok {
				pos[table] = [2]int{sh.Start.Line, sh.Start.Column}
			}
		case unstable.KeyValue:
			keyValue(&p, e, table, pos)
		}
	}
	return pos
}

// keyValue records a key-value under table, and the keys of an inline table
// value ("obstacle = { eps = 0 }" writes "obstacle.eps").
func keyValue(p *unstable.Parser, e *unstable.Node, table string, pos map[string][2]int) {
	path := strings.Join(keyParts(e), ".")
	if table != "" {
		path = table + "." + path
	}
	if sh, ok := shapeOf(p, e); ok {
		pos[path] = [2]int{sh.Start.Line, sh.Start.Column}
	}
	if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				keyValue(p, kv, path, pos)
			}
		}
	}
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
		switch {
		case i == len(parts)-1 && isArray:
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
