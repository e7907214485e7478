package rmnp

import (
	"context"
	"testing"
)

// TestSteadyStateAllocations checks the hot path allocates nothing per message once
// buffers are warm, with a cancellable context as the engine passes, for
// synchronous and asynchronous DATA, CTRL, and float64 payloads.
func TestSteadyStateAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count needs a warm-up")
	}
	for _, mode := range []Mode{Sync, Async} {
		t.Run(mode.String(), func(t *testing.T) {
			a, b := pair(t, "unix", LinkOptions{Mode: mode, Network: "unix"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			v := make([]float64, 4096)
			w := make([]float64, 4096)
			ctrl := make([]byte, 16)
			round := func() {
				if err := a.SendFloat64s(ctx, 2, v, DATA); err != nil {
					t.Fatal(err)
				}
				if _, err := b.ReceiveFloat64s(ctx, 1, w, DATA); err != nil {
					t.Fatal(err)
				}
				if err := b.Send(ctx, 1, ctrl, CTRL); err != nil {
					t.Fatal(err)
				}
				if _, err := a.Receive(ctx, 2, ctrl, CTRL); err != nil {
					t.Fatal(err)
				}
			}
			for range 50 {
				round()
			}
			if avg := testing.AllocsPerRun(300, round); avg > 0.05 {
				t.Fatalf("%.2f allocations per round trip, want 0", avg)
			}
		})
	}
}
