package jobs

import (
	"errors"
	"fmt"
	"math"
)

// ErrMemory is wrapped when a job cannot fit the memory it would need.
var ErrMemory = errors.New("jobs: not enough memory")

// consoleArrays is how many n³ arrays of float64 the console holds at once
// after a run: the gathered solution and the sweep that measures the true
// residual.
const consoleArrays = 2

// ConsoleMemory is the console's memory need for spec in bytes: the
// gathered solution and its true-residual sweep (consoleArrays arrays of n³
// float64).
func ConsoleMemory(s Spec) uint64 {
	n := uint64(max(s.Obstacle.N, 0))
	return consoleArrays * 8 * n * n * n
}

// CheckConsoleMemory refuses a job whose gathered solution would not fit in
// available bytes (0: unknown, accepted), naming both figures and the
// largest n that fits, instead of the console dying out of memory after
// the run.
func CheckConsoleMemory(s Spec, available uint64) error {
	need := ConsoleMemory(s)
	if available == 0 || need <= available {
		return nil
	}
	fit := int(math.Cbrt(float64(available) / (consoleArrays * 8)))
	return fmt.Errorf("%w: n = %d needs %s on the console to gather the solution (%d arrays of n³ float64), it has %s available: choose n ≤ %d",
		ErrMemory, s.Obstacle.N, Bytes(need), consoleArrays, Bytes(available), fit)
}

// Bytes formats a byte count with a binary unit: "512 B", "8.0 GiB".
func Bytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
