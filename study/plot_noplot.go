//go:build noplot

package study

import (
	"errors"
	"io"

	"github.com/gridtui/gridtui/jobs"
)

// PlotFormats are the file formats WriteGainPlot writes: none in a build
// without the plotting stack (the lean worker, tag noplot).
var PlotFormats = []string{}

// ErrNoPlots is returned by WriteGainPlot in a build without plots.
var ErrNoPlots = errors.New("study: this gridtui was built without plots (tag noplot, the lean worker); use the full build for gain plots")

// WriteGainPlot is unavailable in a build without the plotting stack.
func WriteGainPlot(io.Writer, jobs.Table, string) error { return ErrNoPlots }
