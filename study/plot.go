//go:build !noplot

package study

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gridtui/gridtui/jobs"
)

// PlotFormats are the file formats WriteGainPlot writes.
var PlotFormats = []string{"svg", "png"}

// WriteGainPlot draws the computing gain C_g = t1/ts against the total
// number of cores, one line per grid configuration × scheme (colour by
// scheme, dash pattern by grid configuration), with the ideal C_g = cores
// as a grey reference, and writes it to w as "svg" or "png".
func WriteGainPlot(w io.Writer, gains jobs.Table, format string) error {
	if format != "svg" && format != "png" {
		return fmt.Errorf("study: plot format %q: want svg or png", format)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Computing gain C_g = t1/ts, obstacle problem n = %d, eps = %g", gains.N, gains.Eps)
	p.X.Label.Text = "number of cores"
	p.Y.Label.Text = "computing gain C_g"
	// Head room above the highest point keeps the legend (top left) clear
	// of the lines.
	p.Y.Min, p.Y.Max = 0, max(gains.MaxCell(), 1)*1.5
	p.Legend.Top, p.Legend.Left = true, true
	var ticks []plot.Tick
	for _, r := range gains.Rows {
		ticks = append(ticks, plot.Tick{Value: float64(r.Cores), Label: fmt.Sprint(r.Cores)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if err := addIdeal(p, gains); err != nil {
		return err
	}
	grid, gi := "", -1
	for i, c := range gains.Columns {
		if c.GridName() != grid {
			grid, gi = c.GridName(), gi+1
		}
		var pts plotter.XYs
		for _, r := range gains.Rows {
			if v := r.Cells[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				pts = append(pts, plotter.XY{X: float64(r.Cores), Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("study: plot %s %s: %w", c.GridName(), c.Scheme, err)
		}
		si := max(c.Scheme.Index(), 0)
		line.Color, points.Color = plotutil.Color(si), plotutil.Color(si)
		line.Dashes = plotutil.Dashes(gi)
		line.Width = vg.Points(1.5)
		points.Shape = plotutil.Shape(gi)
		points.Radius = vg.Points(3)
		p.Add(line, points)
		p.Legend.Add(c.GridName()+" "+jobs.SchemeLabel(c.Scheme), line, points)
	}
	wt, err := p.WriterTo(18*vg.Centimeter, 12*vg.Centimeter, format)
	if err != nil {
		return fmt.Errorf("study: render plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("study: write plot: %w", err)
	}
	return nil
}

// addIdeal draws C_g = cores (linear speed-up), clipped a little above the
// highest measured gain so that it does not squash the measured lines.
func addIdeal(p *plot.Plot, gains jobs.Table) error {
	if len(gains.Rows) == 0 {
		return nil
	}
	top := max(gains.MaxCell()*1.2, 1)
	var pts plotter.XYs
	for _, r := range gains.Rows {
		if c := float64(r.Cores); c <= top {
			pts = append(pts, plotter.XY{X: c, Y: c})
		}
	}
	if len(pts) < 2 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("study: plot ideal line: %w", err)
	}
	l.Color = color.Gray{Y: 170}
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(l)
	p.Legend.Add("ideal C_g = cores", l)
	return nil
}
