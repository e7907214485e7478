package rmnp

import (
	"context"
	"testing"
)

// BenchmarkAsyncSend measures an asynchronous DATA send (copy + queue), the cost
// the computing thread pays per halo in AIAC mode. The ping-pong and streaming
// benchmarks against plain sockets are in internal/rmnpbench.
func BenchmarkAsyncSend(b *testing.B) {
	a, peer := pair(b, "unix", LinkOptions{Mode: Async, Network: "unix"})
	_ = peer
	buf := make([]byte, 64<<10)
	ctx := context.Background()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Send(ctx, 2, buf, DATA); err != nil {
			b.Fatal(err)
		}
	}
}
