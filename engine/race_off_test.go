//go:build !race

package engine

// raceDetector reports whether the tests run with -race.
const raceDetector = false
