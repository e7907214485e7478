//go:build race

package structured

// raceEnabled is set in race-detector builds: the detector cannot see the
// memory accesses of assembly, so the kernels are then the Go ones.
const raceEnabled = true
