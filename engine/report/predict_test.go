package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/predict"
)

// TestWritePrediction: the report says whether the prediction was long or
// short of the measured time, and by how much.
func TestWritePrediction(t *testing.T) {
	for _, tc := range []struct {
		predicted float64
		want      string
	}{{1.1, "(the prediction 10 % long)"}, {0.9, "(the prediction 10 % short)"}, {1.001, "(the prediction on time)"}} {
		r := &Report{Wall: time.Second, Predicted: &Prediction{Seconds: tc.predicted, MeanIterations: 10, Sources: 2},
			Nodes: []NodeReport{{Iterations: 10}}}
		var b strings.Builder
		r.writePrediction(&b)
		if !strings.Contains(b.String(), "measured 1s and 10 "+tc.want) {
			t.Errorf("predicted %g s: %q, want it to say %q", tc.predicted, b.String(), tc.want)
		}
	}
}

// TestWriteBSPPrediction: the report gives the model's terms and the
// error against the measured time.
func TestWriteBSPPrediction(t *testing.T) {
	r := &Report{Wall: 2 * time.Second, Nodes: []NodeReport{{Iterations: 100}, {Iterations: 100}},
		Predicted: &Prediction{Seconds: 1.8, MeanIterations: 100, Sources: 1, BSP: &predict.BSPPrediction{
			Seconds: 1.8, Work: 1.4, Comm: 0.2, Sync: 0.1, Startup: 0.1, Supersteps: 100, Network: "ethernet", Source: "r1"}}}
	var b strings.Builder
	r.writePrediction(&b)
	want := "predicted: 1.8s for 100 supersteps (BSP W + h·g + l: W 1.4s, h·g 200ms, l 100ms; start-up 100ms; g and l of ethernet; supersteps of run r1); measured 2s and 100 (the prediction 10 % short)\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
