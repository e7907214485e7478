//go:build race

package obstacle

// raceEnabled is set in race-detector builds. The detector cannot see the
// memory accesses of assembly, so Slab then sweeps with the Go kernel; the
// long reference solves in the tests are skipped (the detector slows the
// kernel about tenfold).
const raceEnabled = true
