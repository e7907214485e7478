package jobs

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func gainTable() Table {
	nan := math.NaN()
	return Table{Kind: GainTable, N: 64, Eps: 1e-6,
		Columns: []TableColumn{{Grid: "alpha", Scheme: Synchronous}, {Grid: "alpha+beta", Scheme: Asynchronous},
			{Grid: "alpha+beta", Scheme: Hybrid}},
		Rows: []TableRow{{Cores: 1, Cells: []float64{1, nan, nan}}, {Cores: 2, Cells: []float64{1.5, 2, nan}},
			{Cores: 8, Cells: []float64{nan, 4, 3}}}}
}

func TestRenderGainChart(t *testing.T) {
	tests := []struct {
		name          string
		width, height int
	}{
		{"80x20", 80, 20},
		{"40x12", 40, 12},
		{"24x8", 24, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderGainChart(&b, tt.width, tt.height, gainTable()); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(lines) > tt.height {
				t.Errorf("%d lines, want at most %d:\n%s", len(lines), tt.height, b.String())
			}
			for _, l := range lines {
				if utf8.RuneCountInString(l) > tt.width {
					t.Errorf("line wider than %d: %q", tt.width, l)
				}
			}
			// The axis tops at the nice ceiling of the highest gain (4 → 5).
			if !strings.HasPrefix(strings.TrimSpace(lines[0]), "5 ┤") {
				t.Errorf("top line %q: want the label 5", lines[0])
			}
			// Higher gains are on higher lines; more cores further right.
			a8, h8 := markerAt(lines, 'A', 1), markerAt(lines, 'H', 0)
			s1, s2 := markerAt(lines, 's', 0), markerAt(lines, 's', 1)
			if tt.height >= 12 && (a8[0] >= h8[0] || a8[1] != h8[1]) {
				t.Errorf("8 cores: A (gain 4) at %v, H (gain 3) at %v: want A above H in one column", a8, h8)
			}
			// (At 24×8 the plot has 3 lines: 1.5 and 2 share a cell.)
			if tt.height >= 12 && (s1[0] <= s2[0] || s1[1] >= s2[1] || s2[1] >= a8[1]) {
				t.Errorf("s at 1 core %v, at 2 cores %v, A at 8 cores %v: want rising to the right", s1, s2, a8)
			}
			out := b.String()
			for _, want := range []string{"s alpha Syn", "A alpha+beta Asyn", "H alpha+beta Hybrid", "cores", "└"} {
				if !strings.Contains(out, want) {
					t.Errorf("chart lacks %q:\n%s", want, out)
				}
			}
			if strings.Count(out, "s") < 3 { // two points + legend
				t.Errorf("alpha Syn should show 2 points:\n%s", out)
			}
		})
	}
}

func TestRenderGainChartTooSmallOrEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := RenderGainChart(&b, 10, 5, gainTable()); err != nil || !strings.Contains(b.String(), "needs at least") {
		t.Errorf("small chart: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := RenderGainChart(&b, 60, 12, Table{Kind: GainTable}); err != nil || !strings.Contains(b.String(), "no gains") {
		t.Errorf("empty table: %q, %v", b.String(), err)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {0.4, 1}, {1, 1}, {1.2, 2}, {3.3, 5}, {7, 10}, {12, 20}, {24, 25}} {
		if got := niceCeil(c.in); got != c.want {
			t.Errorf("niceCeil(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// markerAt returns {line, column} of the k-th occurrence (0-based, in
// column order) of marker m in the chart's plot lines (those with "┤").
func markerAt(lines []string, m rune, k int) [2]int {
	type pos struct{ line, col int }
	var found []pos
	for i, l := range lines {
		if !strings.Contains(l, "┤") {
			continue
		}
		for j, r := range []rune(l) {
			if r == m {
				found = append(found, pos{i, j})
			}
		}
	}
	slices.SortStableFunc(found, func(a, b pos) int { return a.col - b.col })
	if k >= len(found) {
		return [2]int{-1, -1}
	}
	return [2]int{found[k].line, found[k].col}
}

func TestRenderGainChartOverlap(t *testing.T) {
	tb := Table{Kind: GainTable, N: 8, Eps: 1e-6,
		Columns: []TableColumn{{Grid: "a+b", Scheme: Synchronous}, {Grid: "a+b", Scheme: Asynchronous}},
		Rows:    []TableRow{{Cores: 2, Cells: []float64{1, 1}}, {Cores: 4, Cells: []float64{1, 2}}}}
	var b bytes.Buffer
	if err := RenderGainChart(&b, 40, 12, tb); err != nil {
		t.Fatal(err)
	}
	if p := markerAt(strings.Split(b.String(), "\n"), Overlap, 0); p[0] < 0 {
		t.Errorf("equal gains at 2 cores show no overlap marker:\n%s", b.String())
	}
	if p := markerAt(strings.Split(b.String(), "\n"), 's', 0); p[0] < 0 {
		t.Errorf("s at 4 cores is missing:\n%s", b.String())
	}
}
