package jobs

import (
	"errors"
	"fmt"
)

// ErrMemory is wrapped when a job cannot fit the memory it would need.
var ErrMemory = errors.New("jobs: not enough memory")

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
