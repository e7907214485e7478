//go:build !race

package compose

// raceEnabled: see race_test.go.
const raceEnabled = false
