package rmnp

import (
	"os"
	"strings"
	"time"
)

// The clock of the BlockedReceive counter. A Receive that waits reads a clock when
// it starts waiting and when its message is in: on the small-message ping-pong the
// two vDSO clock reads (time.Since) were a visible share of a one-way message in
// perf (docs/bench/rmnp.md). Where the kernel itself keeps time with the CPU's
// time-stamp counter (clocksource "tsc": constant rate, synchronised across
// CPUs), the counter is read directly instead (rdtsc, amd64) and the sum is
// converted to nanoseconds when Stats reads it, at the rate measured against the
// monotonic clock since the first reading. Elsewhere ticks are nanoseconds.

// clockState is the tick source and its calibration origin, chosen at start-up.
type clockState struct {
	tsc    bool
	mono0  int64 // monoNow at the origin
	ticks0 int64 // rdtsc at the origin
}

var clk = initClock()

// kernelClocksource returns the kernel's current clocksource ("tsc", "kvm-clock"…),
// or "" where it cannot be read.
func kernelClocksource() string {
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func initClock() clockState {
	if !haveTSC || kernelClocksource() != "tsc" {
		return clockState{}
	}
	return clockState{tsc: true, mono0: monoNow(), ticks0: rdtsc()}
}

// ticks returns the blocked-time clock: a positive reading in ticks.
func ticks() int64 {
	if clk.tsc {
		return rdtsc()
	}
	return monoNow()
}

// ticksDuration converts a sum of tick intervals to a duration.
func ticksDuration(t int64) time.Duration {
	if !clk.tsc || t <= 0 {
		return time.Duration(max(t, 0))
	}
	dt, dn := rdtsc()-clk.ticks0, monoNow()-clk.mono0
	if dt <= 0 || dn <= 0 {
		return 0
	}
	return time.Duration(float64(t) * float64(dn) / float64(dt))
}
