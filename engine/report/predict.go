package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gridtui/gridtui/predict"
)

// Prediction is what package predict expected of a run, from the traces of
// the runs recorded before it, beside what the run measured.
type Prediction struct {
	Seconds        float64 `json:"seconds"`
	MeanIterations float64 `json:"mean_iterations"`
	Sources        int     `json:"sources"` // traced runs it rests on
	// BSP is set for a BSP program, predicted by BSP's cost model (the
	// supersteps of its last traced run, bench bsp's g and l) instead of
	// a replay; MeanIterations is then its supersteps.
	BSP *predict.BSPPrediction `json:"bsp,omitempty"`
}

// writePrediction prints the prediction against the measured wall time and
// iterations.
func (r *Report) writePrediction(b *strings.Builder) {
	p := r.Predicted
	if p == nil {
		if r.Unpredicted != "" {
			fmt.Fprintf(b, "predicted: nothing: %s\n", r.Unpredicted)
		}
		return
	}
	it := 0.0
	for _, n := range r.Nodes {
		it += float64(n.Iterations) / float64(len(r.Nodes))
	}
	errPct := 0.0
	if r.Wall > 0 {
		errPct = 100 * (p.Seconds - r.Wall.Seconds()) / r.Wall.Seconds()
	}
	off := "the prediction on time"
	switch e := math.Round(errPct); {
	case e > 0:
		off = fmt.Sprintf("the prediction %.0f %% long", e)
	case e < 0:
		off = fmt.Sprintf("the prediction %.0f %% short", -e)
	}
	if p.BSP != nil {
		r.writeBSPPrediction(b, off)
		return
	}
	fmt.Fprintf(b, "predicted: %s and %.0f iterations per node (from %d traced runs); measured %s and %.0f (%s)\n",
		time.Duration(p.Seconds*float64(time.Second)).Round(time.Millisecond), p.MeanIterations, p.Sources,
		r.Wall.Round(time.Millisecond), it, off)
}

// writeBSPPrediction prints a BSP prediction's terms against the measured
// wall time and supersteps.
func (r *Report) writeBSPPrediction(b *strings.Builder, off string) {
	p := r.Predicted.BSP
	steps := 0
	for _, n := range r.Nodes {
		steps = max(steps, n.Iterations)
	}
	ms := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)).Round(time.Microsecond) }
	fmt.Fprintf(b, "predicted: %s for %d supersteps (BSP W + h·g + l: W %s, h·g %s, l %s; start-up %s; g and l of %s; supersteps of run %s); measured %s and %d (%s)\n",
		ms(p.Seconds), p.Supersteps, ms(p.Work), ms(p.Comm), ms(p.Sync), ms(p.Startup), p.Network, p.Source,
		r.Wall.Round(time.Millisecond), steps, off)
}
