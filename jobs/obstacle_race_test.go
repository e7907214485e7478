//go:build race

package jobs

// raceEnabled is set when tests run under the race detector, which slows the
// kernel about tenfold; the long reference solves are skipped then.
const raceEnabled = true
