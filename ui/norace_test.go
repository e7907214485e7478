//go:build !race

package ui

// raceEnabled: see race_test.go.
const raceEnabled = false
