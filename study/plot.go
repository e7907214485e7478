package study

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/gridtui/gridtui/jobs"
)

// PlotFormats are the file formats WriteGainPlot writes.
var PlotFormats = []string{"svg", "png"}

// The gain plot is drawn here with the standard library (and a 7×13 bitmap
// font for PNG text) rather than a plotting library: a plotting stack with
// embedded fonts would be most of the size of the binary that deploy ships
// to every host, and workers never plot.

// Plot geometry, in pixels (SVG user units).
const (
	plotW, plotH                       = 720, 480
	marginL, marginR, marginT, marginB = 70, 20, 40, 55
)

// palette colours the lines by scheme (index of jobs.Scheme).
var palette = []color.RGBA{
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// dashes tells the grid configurations apart (nil: solid).
var dashes = [][]float64{nil, {6, 3}, {2, 3}, {8, 3, 2, 3}, {12, 4}}

var (
	black = color.RGBA{A: 0xff}
	grey  = color.RGBA{R: 170, G: 170, B: 170, A: 0xff}
)

// xy is a point in data or pixel coordinates.
type xy struct{ x, y float64 }

// canvas is what a plot is drawn on: an SVG document or a PNG image.
type canvas interface {
	line(pts []xy, c color.RGBA, width float64, dash []float64)
	marker(p xy, shape int, c color.RGBA)
	// text writes s at p; align is -1 (start), 0 (middle) or 1 (end);
	// vertical text reads bottom to top.
	text(p xy, s string, align int, vertical bool)
	writeTo(w io.Writer) error
}

// series is one line of the plot.
type series struct {
	label  string
	pts    []xy
	col    color.RGBA
	dash   []float64
	shape  int // -1: no markers
	weight float64
}

// WriteGainPlot draws the computing gain C_g = t1/ts against the total
// number of cores, one line per grid configuration × scheme (colour by
// scheme, dash pattern and marker by grid configuration), with the ideal
// C_g = cores as a grey reference, and writes it to w as "svg" or "png".
func WriteGainPlot(w io.Writer, gains jobs.Table, format string) error {
	var cv canvas
	switch format {
	case "svg":
		cv = newSVG(plotW, plotH)
	case "png":
		cv = newPNG(plotW, plotH)
	default:
		return fmt.Errorf("study: plot format %q: want svg or png", format)
	}
	ss := gainSeries(gains)
	top := max(gains.MaxCell(), 1) * 1.5 // head room keeps the legend clear of the lines
	var xs []float64
	for _, r := range gains.Rows {
		xs = append(xs, float64(r.Cores))
	}
	lo, hi := 0.0, 1.0
	if len(xs) > 0 {
		lo, hi = xs[0], xs[len(xs)-1]
		for _, x := range xs {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	ax := axes{x0: lo, x1: hi, y1: top}
	ax.draw(cv, xs)
	cv.text(xy{plotW / 2, 22}, fmt.Sprintf("Computing gain C_g = t1/ts, obstacle problem n = %d, eps = %g", gains.N, gains.Eps), 0, false)
	cv.text(xy{(marginL + plotW - marginR) / 2, plotH - 12}, "number of cores", 0, false)
	cv.text(xy{18, (marginT + plotH - marginB) / 2}, "computing gain C_g", 0, true)
	for _, s := range ss {
		px := make([]xy, len(s.pts))
		for i, p := range s.pts {
			px[i] = ax.pixel(p)
		}
		cv.line(px, s.col, s.weight, s.dash)
		if s.shape >= 0 {
			for _, p := range px {
				cv.marker(p, s.shape, s.col)
			}
		}
	}
	drawLegend(cv, ss)
	if err := cv.writeTo(w); err != nil {
		return fmt.Errorf("study: write plot: %w", err)
	}
	return nil
}

// gainSeries is the ideal line (when it has two points under the clip) and
// one series per column with at least one finite cell.
func gainSeries(gains jobs.Table) []series {
	var out []series
	if len(gains.Rows) > 0 {
		// The ideal is clipped a little above the highest measured gain so
		// that it does not squash the measured lines.
		clip := max(gains.MaxCell()*1.2, 1)
		var pts []xy
		for _, r := range gains.Rows {
			if c := float64(r.Cores); c <= clip {
				pts = append(pts, xy{c, c})
			}
		}
		if len(pts) >= 2 {
			out = append(out, series{label: "ideal C_g = cores", pts: pts, col: grey, dash: []float64{2, 2}, shape: -1, weight: 1})
		}
	}
	grid, gi := "", -1
	for i, c := range gains.Columns {
		if c.GridName() != grid {
			grid, gi = c.GridName(), gi+1
		}
		var pts []xy
		for _, r := range gains.Rows {
			if v := r.Cells[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				pts = append(pts, xy{float64(r.Cores), v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		si := max(c.Scheme.Index(), 0)
		out = append(out, series{label: c.GridName() + " " + jobs.SchemeLabel(c.Scheme), pts: pts,
			col: palette[si%len(palette)], dash: dashes[gi%len(dashes)], shape: gi % numShapes, weight: 1.5})
	}
	return out
}

// axes maps data to pixels: x from x0..x1, y from 0..y1.
type axes struct{ x0, x1, y1 float64 }

func (a axes) pixel(p xy) xy {
	w, h := float64(plotW-marginL-marginR), float64(plotH-marginT-marginB)
	return xy{marginL + (p.x-a.x0)/(a.x1-a.x0)*w, plotH - marginB - p.y/a.y1*h}
}

// draw draws the frame, a tick per x value (the rows' core counts) and
// round y ticks.
func (a axes) draw(cv canvas, xs []float64) {
	l, r, t, b := float64(marginL), float64(plotW-marginR), float64(marginT), float64(plotH-marginB)
	cv.line([]xy{{l, t}, {l, b}, {r, b}}, black, 1, nil)
	for _, x := range xs {
		p := a.pixel(xy{x, 0})
		cv.line([]xy{{p.x, b}, {p.x, b + 5}}, black, 1, nil)
		cv.text(xy{p.x, b + 18}, fmt.Sprint(x), 0, false)
	}
	step := niceStep(a.y1 / 5)
	for y := 0.0; y <= a.y1+step/1e6; y += step {
		p := a.pixel(xy{a.x0, y})
		cv.line([]xy{{l - 5, p.y}, {l, p.y}}, black, 1, nil)
		cv.text(xy{l - 8, p.y + 4}, fmt.Sprint(math.Round(y*1e6)/1e6), 1, false)
	}
}

// niceStep rounds s up to 1, 2 or 5 times a power of ten.
func niceStep(s float64) float64 {
	if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(s)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= s {
			return m * p
		}
	}
	return 10 * p
}

// drawLegend lists the series at the top left of the plot area.
func drawLegend(cv canvas, ss []series) {
	x, y := float64(marginL+12), float64(marginT+14)
	for _, s := range ss {
		cv.line([]xy{{x, y - 4}, {x + 28, y - 4}}, s.col, s.weight, s.dash)
		if s.shape >= 0 {
			cv.marker(xy{x + 14, y - 4}, s.shape, s.col)
		}
		cv.text(xy{x + 36, y}, s.label, -1, false)
		y += 16
	}
}
