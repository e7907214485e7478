//go:build !amd64

package rmnp

// haveTSC reports that rdtsc reads the CPU's time-stamp counter: not here.
const haveTSC = false

func rdtsc() int64 { return 0 }
