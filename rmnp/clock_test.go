package rmnp

import (
	"testing"
	"time"
)

// TestTicksDuration checks the blocked-time clock against the wall clock: an
// interval measured in ticks converts to about the same duration (wide bounds: the
// machine may be loaded), and the source matches the kernel's clocksource.
func TestTicksDuration(t *testing.T) {
	if want := haveTSC && kernelClocksource() == "tsc"; clk.tsc != want {
		t.Fatalf("tsc clock %v, want %v (clocksource %q)", clk.tsc, want, kernelClocksource())
	}
	wall := time.Now()
	t0 := ticks()
	time.Sleep(30 * time.Millisecond)
	got := ticksDuration(ticks() - t0)
	elapsed := time.Since(wall)
	if got < 25*time.Millisecond || got > elapsed+5*time.Millisecond {
		t.Fatalf("30 ms sleep measured %v in ticks, %v on the wall clock", got, elapsed)
	}
	if ticksDuration(0) != 0 || ticksDuration(-5) != 0 {
		t.Fatal("empty or negative sums must convert to 0")
	}
}

// BenchmarkClock compares the blocked-time clock with the monotonic clock it
// replaces where the kernel keeps time with the TSC.
func BenchmarkClock(b *testing.B) {
	var sink int64
	b.Run("ticks", func(b *testing.B) {
		for b.Loop() {
			sink += ticks()
		}
	})
	b.Run("monoNow", func(b *testing.B) {
		for b.Loop() {
			sink += monoNow()
		}
	})
	_ = sink
}
