package common

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Sci formats a residual compactly.
func Sci(v float64) string {
	if v == 0 {
		return "0"
	}
	return strings.Replace(fmt.Sprintf("%.1e", v), "e-0", "e-", 1)
}

// BytesText formats a byte count in binary units.
func BytesText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// CountText formats a count with k/M suffixes.
func CountText(n uint64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

// Clock formats an elapsed time as mm:ss.t (or h:mm:ss).
func Clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d >= time.Hour {
		return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
	return fmt.Sprintf("%02d:%04.1f", int(d.Minutes()), math.Mod(d.Seconds(), 60))
}
