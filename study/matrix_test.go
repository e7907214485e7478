package study

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

const goodMatrix = `name = "t"
sizes = [32, 48]
eps = 1e-7
nodes = [1, 2, 4]
cores = [1, 2]
repeats = 2
wall_time = "90s"

[[grid]]
clusters = ["alpha"]
schemes = ["sync", "async"]

[[grid]]
clusters = ["alpha", "beta"]
`

func TestParseMatrixGood(t *testing.T) {
	m, err := ParseMatrix("good.toml", []byte(goodMatrix))
	if err != nil {
		t.Fatal(err)
	}
	all := []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}
	want := Matrix{Name: "t", Sizes: []int{32, 48}, Eps: 1e-7, Schemes: all, Nodes: []int{1, 2, 4},
		Cores: []int{1, 2}, Repeats: 2, SingleRepeats: 2, WallTime: 90 * time.Second,
		Grids: []GridConfig{
			{Clusters: []string{"alpha"}, Schemes: []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous}},
			{Clusters: []string{"alpha", "beta"}, Schemes: all},
		}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("ParseMatrix =\n%+v\nwant\n%+v", m, want)
	}
	// 2 sizes × (2 single + 2 multi-node counts × 2 cores × (2+3) schemes × 2 repeats)
	if got := m.RunCount(); got != 2*(2+2*2*5*2) {
		t.Errorf("RunCount = %d, want %d", got, 2*(2+2*2*5*2))
	}
}

// TestDefaultMatrixIsTheQuickFile keeps DefaultMatrix and the documented
// testdata/study/quick.toml the same study.
func TestDefaultMatrixIsTheQuickFile(t *testing.T) {
	m, err := LoadMatrix("../testdata/study/quick.toml")
	if err != nil {
		t.Fatal(err)
	}
	if d := DefaultMatrix(); !reflect.DeepEqual(m, d) {
		t.Errorf("quick.toml =\n%+v\nDefaultMatrix =\n%+v", m, d)
	}
}

func TestLoadMatrixFiles(t *testing.T) {
	for _, f := range []string{"quick.toml", "harness.toml", "harness-wan.toml"} {
		t.Run(f, func(t *testing.T) {
			if _, err := LoadMatrix("../testdata/study/" + f); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := LoadMatrix("../testdata/study/missing.toml"); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("missing file: err = %v, want one naming the file", err)
	}
}

func TestParseMatrixBad(t *testing.T) {
	grid := "\n[[grid]]\nclusters = [\"alpha\"]\n"
	tests := []struct {
		name, doc string
		line, col int
		msg       string
	}{
		{"unknown key", "sizes = [8]\nnodes = [2]\nnodez = 3\n" + grid, 3, 1, `unknown key "nodez"`},
		{"unknown key in grid", "sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\"]\ncluster = \"b\"\n", 5, 1, `unknown key "grid[0].cluster"`},
		{"syntax", "sizes = [8\nnodes = [2]\n", 2, 1, ""},
		{"wrong type", "sizes = \"big\"\n", 1, 9, ""},
		{"no sizes", "nodes = [2]\n" + grid, 0, 0, "sizes is missing"},
		{"size range", "nodes = [2]\n  sizes = [0]\n" + grid, 2, 3, "size n = 0 is out of range"},
		{"eps", "sizes = [8]\nnodes = [2]\neps = -1.0\n" + grid, 3, 1, "eps = -1 must be a positive number"},
		{"scheme", "sizes = [8]\nnodes = [2]\nschemes = [\"sync\", \"fast\"]\n" + grid, 3, 1, `scheme "fast" is unknown`},
		{"scheme twice", "sizes = [8]\nnodes = [2]\nschemes = [\"sync\", \"sync\"]\n" + grid, 3, 1, "listed twice"},
		{"no nodes", "sizes = [8]\n" + grid, 0, 0, "nodes is missing"},
		{"cores", "sizes = [8]\nnodes = [2]\ncores = [0]\n" + grid, 3, 1, "cores per node 0"},
		{"repeats", "sizes = [8]\nnodes = [2]\nrepeats = 99\n" + grid, 3, 1, "repeats = 99 is out of range"},
		{"wall time", "sizes = [8]\nnodes = [2]\nwall_time = \"soon\"\n" + grid, 3, 1, `wall_time "soon"`},
		{"no grid", "sizes = [8]\nnodes = [2]\n", 0, 0, "no [[grid]]"},
		{"grid without clusters", "sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\"]\n[[grid]]\nschemes = [\"sync\"]\n", 5, 3, "grid 2 lists no clusters"},
		{"grid scheme", "sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\"]\n[[grid]]\nclusters = [\"b\"]\nschemes = [\"x\"]\n", 7, 1, `scheme "x" is unknown`},
		{"grid repeated", "sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\", \"b\"]\n[[grid]]\nclusters = [\"b\", \"a\"]\n", 6, 1, "grid 2 repeats grid 1"},
		{"cluster repeated", "sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\", \"a\"]\n", 4, 1, `cluster "a" is empty or repeated`},
		{"too many runs", "sizes = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\nnodes = [2, 3, 4, 5, 6, 7, 8]\nrepeats = 20\n" + grid, 1, 1, "at most 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMatrix("m.toml", []byte(tt.doc))
			var me *MatrixError
			if !errors.As(err, &me) || !errors.Is(err, ErrMatrix) {
				t.Fatalf("err = %v (%T), want a *MatrixError wrapping ErrMatrix", err, err)
			}
			if me.File != "m.toml" || me.Line != tt.line || (tt.col > 0 && me.Col != tt.col) {
				t.Errorf("position %s:%d:%d, want m.toml:%d:%d (%v)", me.File, me.Line, me.Col, tt.line, tt.col, err)
			}
			if !strings.Contains(me.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", me.Msg, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "study: m.toml") {
				t.Errorf("error %q does not start with the package and file", err)
			}
			if tt.line > 0 && !strings.Contains(err.Error(), "^") {
				t.Errorf("positioned error has no caret line:\n%v", err)
			}
		})
	}
}
