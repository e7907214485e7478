//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package rmnpbench

import "time"

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }
