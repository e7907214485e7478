package rmnp

// haveTSC reports that rdtsc reads the CPU's time-stamp counter.
const haveTSC = true

// rdtsc returns the CPU's time-stamp counter (clock_amd64.s).
func rdtsc() int64
