package chart

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gridtui/gridtui/ui/widget/text"
)

// sparkRunes are the eight levels of a sparkline.
var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values on a log scale (residuals span many decades) in
// exactly w cells; missing history is left blank on the left.
func Sparkline(vals []float64, w int) string {
	logs := make([]float64, len(vals))
	for i, v := range vals {
		logs[i] = Log10(v)
	}
	return SparklineLog(logs, w)
}

// Log10 is log10(v) for positive finite v, NaN otherwise.
func Log10(v float64) float64 {
	if v > 0 && !math.IsInf(v, 0) {
		return math.Log10(v)
	}
	return math.NaN()
}

// SparklineLog is Sparkline on values already in log10 (NaN = no value),
// so a tick of 1024 nodes costs no logarithms.
func SparklineLog(logs []float64, w int) string {
	if w <= 0 {
		return ""
	}
	if len(logs) > w {
		logs = logs[len(logs)-w:]
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range logs {
		if !math.IsNaN(l) {
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	var b strings.Builder
	b.Grow(w * 3)
	for i := len(logs); i < w; i++ {
		b.WriteByte(' ')
	}
	n := len(sparkRunes)
	for _, l := range logs {
		lv := 0
		switch {
		case math.IsNaN(l):
		case hi-lo < 1e-12:
			lv = n / 2
		default:
			lv = max(0, min(n-1, int((l-lo)/(hi-lo)*float64(n-1)+0.5)))
		}
		b.WriteRune(sparkRunes[lv])
	}
	return b.String()
}

// logRange returns the range of log10 of the positive values.
func logRange(vals []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			l := math.Log10(v)
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0
	}
	return lo, hi
}

// level maps v to 0..n-1 on the log range [lo, hi].
func level(v, lo, hi float64, n int) int {
	if !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	if hi-lo < 1e-12 {
		return n / 2
	}
	f := (math.Log10(v) - lo) / (hi - lo)
	return max(0, min(n-1, int(f*float64(n-1)+0.5)))
}

// Sample is one point of the global residual over time.
type Sample struct {
	At    time.Duration
	Sigma float64
}

// Residual draws σ over time on a log scale as columns of eighth
// blocks, w cells wide (including a 7-cell axis) and h lines high.
func Residual(hist []Sample, w, h int) []string {
	lines := make([]string, h)
	if h <= 0 {
		return lines
	}
	const axis = 7
	pw := w - axis
	if len(hist) == 0 || pw < 4 {
		lines[0] = "σ: no samples yet"
		return lines
	}
	cols := chartColumns(hist, pw)
	lo, hi := logRange(cols)
	lo = math.Floor(lo)
	hi = math.Ceil(hi)
	if hi == lo {
		hi = lo + 1
	}
	levels := h * 8
	grid := make([][]rune, h)
	for r := range grid {
		grid[r] = []rune(strings.Repeat(" ", pw))
	}
	for c, v := range cols {
		if !(v > 0) {
			continue
		}
		l := level(v, lo, hi, levels) + 1
		for r := 0; r < h; r++ {
			fill := l - (h-1-r)*8
			switch {
			case fill >= 8:
				grid[r][c] = '█'
			case fill > 0:
				grid[r][c] = sparkRunes[fill-1]
			}
		}
	}
	for r := 0; r < h; r++ {
		label := ""
		switch r {
		case 0:
			label = fmt.Sprintf("1e%d", int(hi))
		case h - 1:
			label = fmt.Sprintf("1e%d", int(lo))
		}
		lines[r] = text.PadLeft(label, axis-1) + "┤" + string(grid[r])
	}
	return lines
}

// chartColumns resamples the history to pw columns, one per time bucket:
// the last sample in each bucket, held across empty buckets.
func chartColumns(hist []Sample, pw int) []float64 {
	cols := make([]float64, pw)
	start, span := hist[0].At, hist[len(hist)-1].At-hist[0].At
	for _, s := range hist {
		i := pw - 1
		if span > 0 {
			i = int(float64(s.At-start) / float64(span) * float64(pw-1))
		}
		cols[max(0, min(pw-1, i))] = s.Sigma
	}
	for i := 1; i < pw; i++ {
		if cols[i] == 0 {
			cols[i] = cols[i-1]
		}
	}
	return cols
}

// Bar draws a fraction as a bar of w cells (readable without colour).
func Bar(f float64, w int) string {
	f = max(0, min(1, f))
	full := int(f*float64(w) + 0.5)
	return strings.Repeat("█", full) + strings.Repeat("░", w-full)
}
