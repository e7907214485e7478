//go:build race

package engine

// raceDetector reports whether the tests run with -race; the worker processes
// they start are then race-instrumented too (the test binary re-executes
// itself as the worker).
const raceDetector = true
