package engine

// Copies of engine/solve's test helpers for the tests of runs.

import (
	"fmt"
	"github.com/gridtui/gridtui/apps/obstacle"
	"math"
	"strings"
	"testing"

)

// serialAfter returns the serial iterate after k sweeps.
func serialAfter(p obstacle.Problem, k int) []float64 {
	u := obstacle.InitialGuess(p)
	next := make([]float64, len(u))
	for range k {
		obstacle.SerialSweep(p, u, next)
		u, next = next, u
	}
	return u
}

// maxDiff returns max |a − b|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// checkPrefixesOnce fails unless text carries "engine:" exactly once, at the
// start, and "rank <rank>:" exactly once.
func checkPrefixesOnce(t *testing.T, text string, rank int) {
	t.Helper()
	if n := strings.Count(text, "engine:"); n != 1 || !strings.HasPrefix(text, "engine: ") {
		t.Errorf("%q: %d × \"engine:\", want one, in front", text, n)
	}
	if n := strings.Count(text, fmt.Sprintf("rank %d:", rank)); n != 1 {
		t.Errorf("%q: %d × \"rank %d:\", want one", text, n, rank)
	}
}
