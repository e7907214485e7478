package study

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gridtui/gridtui/internal/tomlfile"

	"github.com/gridtui/gridtui/jobs"
)

// Matrix is a study: every combination of its sizes, grid configurations,
// node counts, cores per node and schemes, each run Repeats times, after
// SingleRepeats single-node runs per size that give t1 (GRIDHPC eq. 2).
type Matrix struct {
	Name  string
	Sizes []int   // n, interior points per axis
	Eps   float64 // ε of every run
	// Schemes are the schemes of every grid that does not list its own.
	Schemes []jobs.Scheme
	// Nodes are the computing-node counts b (1 is implied by the
	// single-node runs and skipped here).
	Nodes []int
	// Cores are the cores per node a.
	Cores         []int
	Repeats       int
	SingleRepeats int
	MaxIter       int
	WallTime      time.Duration
	Grids         []GridConfig
}

// GridConfig is one grid configuration of the study: the clusters its nodes
// come from (a column group of Tables III and IV) and its schemes.
type GridConfig struct {
	Clusters []string
	Schemes  []jobs.Scheme
}

// Label is the grid configuration's column label, as the results store
// records it (jobs.GridLabel).
func (g GridConfig) Label() string { return jobs.GridLabel(g.Clusters) }

// ErrMatrix is wrapped by every matrix-file error.
var ErrMatrix = errors.New("study: invalid matrix")

// MatrixError is a matrix-file error with its position: file:line:col, the
// offending line and a marker under the column.
type MatrixError struct {
	File string
	Line int // 1-based; 0 when the error has no position
	Col  int // 1-based
	Msg  string
	Text string
}

// Error formats the error as "study: file:line:col: msg", then the line and
// a caret under the column, control characters from the file quoted (\x1b).
func (e *MatrixError) Error() string {
	var b strings.Builder
	b.WriteString("study: " + tomlfile.Quote(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": " + tomlfile.QuoteMessage(e.Msg))
	if e.Text != "" {
		text, pad := tomlfile.Excerpt(e.Text, e.Col)
		fmt.Fprintf(&b, "\n  %s\n  %s^", text, strings.Repeat(" ", pad))
	}
	return b.String()
}

// Unwrap lets errors.Is(err, ErrMatrix) match.
func (e *MatrixError) Unwrap() error { return ErrMatrix }

// matrixFile is the TOML layout of a matrix file.
type matrixFile struct {
	Name          string     `toml:"name"`
	Sizes         []int      `toml:"sizes"`
	Eps           float64    `toml:"eps"`
	Schemes       []string   `toml:"schemes"`
	Nodes         []int      `toml:"nodes"`
	Cores         []int      `toml:"cores"`
	Repeats       int        `toml:"repeats"`
	SingleRepeats int        `toml:"single_repeats"`
	MaxIter       int        `toml:"max_iterations"`
	WallTime      string     `toml:"wall_time"`
	Grids         []gridFile `toml:"grid"`
}

type gridFile struct {
	Clusters []string `toml:"clusters"`
	Schemes  []string `toml:"schemes"`
}

// Limits of a matrix, so that a typo cannot start a study of days.
const (
	MaxRuns   = 2000
	MaxRepeat = 20
)

// LoadMatrix reads and validates a matrix file.
func LoadMatrix(path string) (Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Matrix{}, fmt.Errorf("study: read matrix %s: %w", path, err)
	}
	return ParseMatrix(path, data)
}

// ParseMatrix decodes a matrix file strictly (unknown keys are errors, as
// in job files) and validates it; errors carry file:line:col.
func ParseMatrix(file string, data []byte) (Matrix, error) {
	var f matrixFile
	if ps := tomlfile.Decode(data, &f); ps != nil {
		return Matrix{}, matrixError(file, ps[0])
	}
	m, fe := f.matrix()
	if fe != nil {
		return Matrix{}, matrixError(file, tomlfile.At(data, fe.path(), fe.msg))
	}
	return m, nil
}

// fieldError is a validation error tied to a key (inside [[grid]] number
// grid, 1-based, when grid > 0).
type fieldError struct {
	grid int
	key  string
	msg  string
}

// path is the error's key path: "sizes", "grid[1].schemes"; the matrix's
// grids as a whole are pointed at by their first [[grid]].
func (fe *fieldError) path() string {
	switch {
	case fe.grid > 0:
		return fmt.Sprintf("grid[%d].%s", fe.grid-1, fe.key)
	case fe.key == "grid":
		return "grid[0]"
	}
	return fe.key
}

func bad(grid int, key, format string, args ...any) *fieldError {
	return &fieldError{grid: grid, key: key, msg: fmt.Sprintf(format, args...)}
}

// matrix validates f and fills the defaults.
func (f matrixFile) matrix() (Matrix, *fieldError) {
	m := Matrix{Name: f.Name, Sizes: f.Sizes, Eps: f.Eps, Nodes: f.Nodes, Cores: f.Cores,
		Repeats: f.Repeats, SingleRepeats: f.SingleRepeats, MaxIter: f.MaxIter}
	if m.Name == "" {
		m.Name = "study"
	}
	if len(m.Sizes) == 0 {
		return m, bad(0, "sizes", "sizes is missing: list the problem sizes n, e.g. sizes = [48, 64]")
	}
	for _, n := range m.Sizes {
		if n < 1 || n > 4096 {
			return m, bad(0, "sizes", "size n = %d is out of range (1…4096)", n)
		}
	}
	if m.Eps == 0 {
		m.Eps = 1e-6
	}
	if !(m.Eps > 0) || math.IsInf(m.Eps, 0) {
		return m, bad(0, "eps", "eps = %g must be a positive number", m.Eps)
	}
	var fe *fieldError
	if m.Schemes, fe = parseSchemes(0, f.Schemes); fe != nil {
		return m, fe
	}
	if len(m.Schemes) == 0 {
		m.Schemes = []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}
	}
	if len(m.Nodes) == 0 {
		return m, bad(0, "nodes", "nodes is missing: list the node counts, e.g. nodes = [2, 4, 8]")
	}
	for _, k := range m.Nodes {
		if k < 1 || k > 1024 {
			return m, bad(0, "nodes", "node count %d is out of range (1…1024)", k)
		}
	}
	if len(m.Cores) == 0 {
		m.Cores = []int{1}
	}
	for _, c := range m.Cores {
		if c < 1 || c > 1024 {
			return m, bad(0, "cores", "cores per node %d is out of range (1…1024)", c)
		}
	}
	if fe := m.limits(f.WallTime); fe != nil {
		return m, fe
	}
	return m, m.grids(f.Grids)
}

// limits checks repeats, max_iterations and wall_time.
func (m *Matrix) limits(wall string) *fieldError {
	if m.Repeats == 0 {
		m.Repeats = 1
	}
	if m.Repeats < 1 || m.Repeats > MaxRepeat {
		return bad(0, "repeats", "repeats = %d is out of range (1…%d)", m.Repeats, MaxRepeat)
	}
	if m.SingleRepeats == 0 {
		m.SingleRepeats = m.Repeats
	}
	if m.SingleRepeats < 1 || m.SingleRepeats > MaxRepeat {
		return bad(0, "single_repeats", "single_repeats = %d is out of range (1…%d)", m.SingleRepeats, MaxRepeat)
	}
	if m.MaxIter < 0 {
		return bad(0, "max_iterations", "max_iterations = %d must not be negative", m.MaxIter)
	}
	m.WallTime = 5 * time.Minute
	if wall != "" {
		d, err := time.ParseDuration(wall)
		if err != nil || d <= 0 {
			return bad(0, "wall_time", "wall_time %q is not a duration like \"90s\" or \"5m\"", wall)
		}
		m.WallTime = d
	}
	return nil
}

// grids checks the [[grid]] tables.
func (m *Matrix) grids(gs []gridFile) *fieldError {
	if len(gs) == 0 {
		return bad(0, "grid", "no [[grid]]: name at least one grid configuration, e.g. clusters = [\"alpha\", \"beta\"]")
	}
	seen := map[string]int{}
	for i, g := range gs {
		if len(g.Clusters) == 0 {
			return bad(i+1, "clusters", "grid %d lists no clusters", i+1)
		}
		for j, c := range g.Clusters {
			if c == "" || slices.Contains(g.Clusters[:j], c) {
				return bad(i+1, "clusters", "grid %d: cluster %q is empty or repeated", i+1, c)
			}
		}
		gc := GridConfig{Clusters: g.Clusters}
		if prev, dup := seen[gc.Label()]; dup {
			return bad(i+1, "clusters", "grid %d repeats grid %d (%s)", i+1, prev, gc.Label())
		}
		seen[gc.Label()] = i + 1
		var fe *fieldError
		if gc.Schemes, fe = parseSchemes(i+1, g.Schemes); fe != nil {
			return fe
		}
		if len(gc.Schemes) == 0 {
			gc.Schemes = m.Schemes
		}
		m.Grids = append(m.Grids, gc)
	}
	if r := m.RunCount(); r > MaxRuns {
		return bad(0, "sizes", "the matrix has %d runs; at most %d", r, MaxRuns)
	}
	return nil
}

func parseSchemes(grid int, ss []string) ([]jobs.Scheme, *fieldError) {
	var out []jobs.Scheme
	for _, s := range ss {
		sc := jobs.Scheme(s)
		switch sc {
		case jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid:
		default:
			return nil, bad(grid, "schemes", "scheme %q is unknown (want sync, async or hybrid)", s)
		}
		if slices.Contains(out, sc) {
			return nil, bad(grid, "schemes", "scheme %q is listed twice", s)
		}
		out = append(out, sc)
	}
	return out, nil
}

// RunCount is the number of runs the matrix asks for at most (node counts
// a grid cannot provide are skipped when the runs are planned).
func (m Matrix) RunCount() int {
	per := 0
	for _, g := range m.Grids {
		per += len(g.Schemes)
	}
	multi := 0
	for _, k := range m.Nodes {
		if k > 1 {
			multi++
		}
	}
	return len(m.Sizes) * (m.SingleRepeats + multi*len(m.Cores)*per*m.Repeats)
}

// matrixError renders a located problem of a matrix file.
func matrixError(file string, p tomlfile.Problem) *MatrixError {
	msg := p.Msg
	if p.Unknown {
		msg = fmt.Sprintf("unknown key %q", p.Key)
	}
	return &MatrixError{File: file, Line: p.Line, Col: p.Col, Text: p.Text, Msg: msg}
}

// DefaultMatrix is the study `gridtui bench study` runs without --matrix,
// the same as testdata/study/quick.toml: n = 48 and 64, the cluster alpha
// alone (sync, async) and alpha + beta (sync, async, hybrid), 2, 4 and 8
// one-core nodes, each twice, two single-node runs per size for t1. It takes a few
// minutes on the embedded local grid.
func DefaultMatrix() Matrix {
	all := []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}
	return Matrix{
		Name: "quick", Sizes: []int{48, 64}, Eps: 1e-6, Schemes: all,
		Nodes: []int{2, 4, 8}, Cores: []int{1}, Repeats: 2, SingleRepeats: 2,
		MaxIter: 200000, WallTime: 3 * time.Minute,
		Grids: []GridConfig{
			{Clusters: []string{"alpha"}, Schemes: []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous}},
			{Clusters: []string{"alpha", "beta"}, Schemes: all},
		},
	}
}
