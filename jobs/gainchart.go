package jobs

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// seriesMarkers mark a series in the terminal chart: one row per grid
// configuration (in column order), one rune per scheme.
var seriesMarkers = [][3]rune{
	{'s', 'a', 'h'},
	{'S', 'A', 'H'},
	{'1', '2', '3'},
	{'4', '5', '6'},
}

// SchemeLabel is the paper's name of a scheme: Syn, Asyn, Hybrid.
func SchemeLabel(s Scheme) string {
	switch s {
	case Synchronous:
		return "Syn"
	case Asynchronous:
		return "Asyn"
	case Hybrid:
		return "Hybrid"
	}
	return string(s)
}

// Overlap marks a cell of the terminal chart where points of several
// series fall.
const Overlap = '+'

// series is one column of a gain table as points (row index, gain).
type series struct {
	label  string
	marker rune
	col    int
}

// chartSeries lists the table's columns with their markers.
func chartSeries(t Table) []series {
	var out []series
	grid, gi := "", -1
	for i, c := range t.Columns {
		if c.GridName() != grid {
			grid, gi = c.GridName(), gi+1
		}
		m := '*'
		if si := c.Scheme.Index(); si >= 0 && gi < len(seriesMarkers) {
			m = seriesMarkers[gi][si]
		}
		out = append(out, series{label: c.GridName() + " " + SchemeLabel(c.Scheme), marker: m, col: i})
	}
	return out
}

// RenderGainChart draws the computing gain against the number of cores, one
// series per grid configuration × scheme, as plain text of at most width
// columns and height lines (axes, points, a legend; Overlap where series
// meet). The x axis places the
// table's rows (core counts) evenly; consecutive points of a series are
// joined by dots. It is meant for the console's Results view and for
// terminal output; it holds no styling, so the caller may colour it.
func RenderGainChart(w io.Writer, width, height int, gains Table) error {
	if width < 24 || height < 8 {
		_, err := fmt.Fprintf(w, "(gain chart needs at least 24×8, have %d×%d)\n", width, height)
		return err
	}
	ss := chartSeries(gains)
	legend := legendLines(ss, width)
	plotH := height - 2 - len(legend)
	if plotH < 3 || len(gains.Rows) == 0 {
		_, err := fmt.Fprintln(w, "(no gains to chart)")
		return err
	}
	c := newChart(gains, width, plotH)
	if c.draw(ss) {
		// Name the overlap marker, giving up a plot line if the legend grows.
		more := legendLines(append(ss, series{label: "several", marker: Overlap}), width)
		if extra := len(more) - len(legend); extra == 0 || plotH-extra >= 3 {
			legend = more
			if extra > 0 {
				c = newChart(gains, width, plotH-extra)
				c.draw(ss)
			}
		}
	}
	var b strings.Builder
	c.write(&b)
	for _, l := range legend {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// chart is the plot area of RenderGainChart.
type chart struct {
	t            Table
	width        int
	plotW, plotH int
	top          float64
	canvas       [][]rune
	yw           int
}

func newChart(t Table, width, plotH int) *chart {
	const yw = 6 // "12.5 ┤"
	c := &chart{t: t, width: width, plotW: width - yw - 1, plotH: plotH, top: niceCeil(t.MaxCell()), yw: yw}
	c.canvas = make([][]rune, plotH)
	for i := range c.canvas {
		c.canvas[i] = []rune(strings.Repeat(" ", c.plotW))
	}
	return c
}

func (c *chart) xOf(row int) int {
	if len(c.t.Rows) == 1 {
		return c.plotW / 2
	}
	return 1 + row*(c.plotW-3)/(len(c.t.Rows)-1)
}

func (c *chart) yOf(v float64) int {
	y := int(math.Round(v / c.top * float64(c.plotH-1)))
	return c.plotH - 1 - min(max(y, 0), c.plotH-1)
}

// draw plots every series and reports whether points of two series fell on
// one cell.
func (c *chart) draw(ss []series) bool {
	overlap := false
	for _, s := range ss {
		overlap = drawSeries(c.canvas, c.t, s, c.xOf, c.yOf) || overlap
	}
	return overlap
}

// write renders the plot lines with the y labels, the x axis and its ticks.
func (c *chart) write(b *strings.Builder) {
	for i, line := range c.canvas {
		label := ""
		if i == 0 || i == c.plotH-1 || i == c.plotH/2 {
			label = formatTick(c.top * float64(c.plotH-1-i) / float64(c.plotH-1))
		}
		fmt.Fprintf(b, "%*s ┤%s\n", c.yw-2, label, strings.TrimRight(string(line), " "))
	}
	b.WriteString(strings.Repeat(" ", c.yw-1) + "└" + strings.Repeat("─", c.plotW) + "\n")
	// The x axis' name sits under the y labels, where no tick reaches.
	ticks := []rune("cores" + strings.Repeat(" ", c.plotW+c.yw))
	for r, row := range c.t.Rows {
		lbl := strconv.Itoa(row.Cores)
		at := c.yw + c.xOf(r) - len(lbl)/2
		copy(ticks[max(at, 6):], []rune(lbl))
	}
	b.WriteString(strings.TrimRight(string(ticks[:c.width]), " ") + "\n")
}

// drawSeries puts a series' markers on the canvas and dots between them; it
// reports whether a marker fell on another series' marker (drawn Overlap).
func drawSeries(canvas [][]rune, t Table, s series, xOf func(int) int, yOf func(float64) int) bool {
	px, py := -1, -1
	overlap := false
	for r, row := range t.Rows {
		v := row.Cells[s.col]
		if math.IsNaN(v) {
			px = -1
			continue
		}
		x, y := xOf(r), yOf(v)
		if px >= 0 {
			for xi := px + 1; xi < x; xi++ {
				yi := py + (y-py)*(xi-px)/(x-px)
				if canvas[yi][xi] == ' ' {
					canvas[yi][xi] = '·'
				}
			}
		}
		if c := canvas[y][x]; c != ' ' && c != '·' && c != s.marker {
			canvas[y][x], overlap = Overlap, true
		} else {
			canvas[y][x] = s.marker
		}
		px, py = x, y
	}
	return overlap
}

// legendLines lays out "m label" entries across lines of at most width.
func legendLines(ss []series, width int) []string {
	var lines []string
	cur := ""
	for _, s := range ss {
		e := string(s.marker) + " " + s.label
		if cur != "" && textWidth(cur)+3+textWidth(e) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += "   "
		}
		cur += e
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// MaxCell returns the largest finite cell of the table, 0 when it has none
// (the top of a chart's axis).
func (t Table) MaxCell() float64 {
	m := 0.0
	for _, r := range t.Rows {
		for _, v := range r.Cells {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = max(m, v)
			}
		}
	}
	return m
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (at least 1).
func niceCeil(v float64) float64 {
	if !(v > 1) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= v {
			return f * p
		}
	}
	return 10 * p
}

func formatTick(v float64) string {
	if v >= 10 || v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
