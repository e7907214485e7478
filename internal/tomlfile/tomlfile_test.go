package tomlfile

import (
	"strings"
	"testing"
)

const doc = `top = 1
dotted.key = 2
inline = { a = 1, b = { c = 2 } }

[[site]]
name = "a"
  [[site.cluster]]
  name = "x"

[[site]]
name = "b"
  [[site.cluster]]
  name = "y"
  [[site.cluster]]
  name = "z"
  cores = 4
`

func TestPositions(t *testing.T) {
	pos := Positions([]byte(doc))
	tests := map[string][2]int{
		"top":                      {1, 1},
		"dotted.key":               {2, 1},
		"inline.a":                 {3, 12},
		"inline.b.c":               {3, 25},
		"site[0].name":             {6, 1},
		"site[1].name":             {11, 1},
		"site[1].cluster[0].name":  {13, 3},
		"site[1].cluster[1].cores": {16, 3},
	}
	for path, want := range tests {
		if got, ok := pos[path]; !ok || got != want {
			t.Errorf("Positions[%q] = %v (%v), want %v", path, got, ok, want)
		}
	}
	if _, ok := pos["site[0].cluster[1].name"]; ok {
		t.Error("a cluster index leaked from site[1] into site[0]")
	}
}

func TestAt(t *testing.T) {
	data := []byte(doc)
	tests := map[string]struct {
		path string
		line int
	}{
		"the key itself":       {"site[1].cluster[1].cores", 16},
		"falls back to table":  {"site[1].cluster[1].hosts", 14},
		"nothing to point at":  {"nowhere", 0},
		"inline table element": {"inline.b.c", 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := At(data, tc.path, "msg")
			if p.Line != tc.line || p.Key != tc.path || p.Msg != "msg" || (tc.line > 0) != (p.Text != "") {
				t.Fatalf("At(%q) = %+v, want line %d", tc.path, p, tc.line)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	type site struct {
		Name  string `toml:"name"`
		Cores int    `toml:"cores"`
	}
	var v struct {
		Site []site `toml:"site"`
	}
	tests := map[string]struct {
		doc      string
		problems int
		line     int
		key, msg string
		unknown  bool
	}{
		"ok":          {doc: "[[site]]\nname = \"a\"\n"},
		"unknown key": {doc: "[[site]]\nname = \"a\"\n[[site]]\ncorez = 1\nnam = 2\n", problems: 2, line: 4, key: "site[1].corez", msg: "unknown key", unknown: true},
		"wrong type":  {doc: "[[site]]\ncores = \"four\"\n", problems: 1, line: 2, key: "site[0].cores", msg: "wrong type: got a TOML string, want an integer"},
		"syntax":      {doc: "[[site]\n", problems: 1, line: 1, msg: "expected ']]'"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ps := Decode([]byte(tc.doc), &v)
			if len(ps) != tc.problems {
				t.Fatalf("%d problems, want %d: %+v", len(ps), tc.problems, ps)
			}
			if tc.problems == 0 {
				return
			}
			p := ps[0]
			if p.Line != tc.line || p.Key != tc.key || p.Unknown != tc.unknown || !strings.Contains(p.Msg, tc.msg) || p.Text == "" {
				t.Fatalf("problem %+v, want line %d key %q unknown %v msg %q", p, tc.line, tc.key, tc.unknown, tc.msg)
			}
		})
	}
}

// FuzzDecode: any input yields either no problem or located problems, and
// the position index never panics.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(doc))
	f.Add([]byte("a = { b = { c = [1, {d = 2}] } }\n[[x.y]]\n[x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v map[string]any
		for _, p := range Decode(data, &v) {
			if p.Msg == "" || p.Line < 0 || p.Col < 0 {
				t.Fatalf("bad problem %+v", p)
			}
		}
		for path, lc := range Positions(data) {
			if path == "" || lc[0] < 1 || lc[1] < 1 {
				t.Fatalf("bad position %q %v", path, lc)
			}
		}
	})
}

func TestDecodeRefusesControlCharacters(t *testing.T) {
	type site struct {
		Name  string   `toml:"name"`
		Hosts []string `toml:"hosts"`
		Opt   struct {
			A string `toml:"a"`
		} `toml:"opt"`
	}
	var v struct {
		Site []site `toml:"site"`
	}
	doc := "[[site]]\nname = \"ok\"\n\n[[site]]\nname = \"red\\u001b[31m\"\nhosts = [\"a\", \"b\\u0007\"]\nopt = { a = \"\\u009b2J\" }\n"
	ps := Decode([]byte(doc), &v)
	want := []struct {
		line, col int
		key       string
	}{{5, 8, "site[1].name"}, {6, 15, "site[1].hosts[1]"}, {7, 13, "site[1].opt.a"}}
	if len(ps) != len(want) {
		t.Fatalf("Decode gave %d problems, want %d: %+v", len(ps), len(want), ps)
	}
	for i, w := range want {
		p := ps[i]
		if p.Line != w.line || p.Col != w.col || p.Key != w.key || !strings.Contains(p.Msg, "control character") {
			t.Errorf("problem %d = %d:%d %s %q, want %d:%d %s", i, p.Line, p.Col, p.Key, p.Msg, w.line, w.col, w.key)
		}
		if strings.ContainsRune(p.Msg, 0x1b) || strings.ContainsRune(p.Msg, 7) {
			t.Errorf("problem %d carries the character raw: %q", i, p.Msg)
		}
	}
}
