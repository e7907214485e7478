package rmnp

import (
	"context"
	"fmt"
	"testing"
)

var benchSizes = []int{8, 1 << 10, 64 << 10, 512 << 10, 4 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkPingPong measures round trips through RMNP and, as the baseline in the
// same run, over a plain net.Conn. MB/s counts both directions (2×size per op);
// ns/oneway is half a round trip.
func BenchmarkPingPong(b *testing.B) {
	for _, tr := range transports {
		for _, size := range benchSizes {
			for _, plain := range []bool{true, false} {
				name := map[bool]string{true: "plain", false: "rmnp"}[plain]
				b.Run(fmt.Sprintf("%s/%s/%s", tr, sizeName(size), name), func(b *testing.B) {
					ctx := context.Background()
					p, err := NewPingPong(ctx, tr, plain, size)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if err := p.Run(ctx, 3); err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(2 * size))
					b.ReportAllocs()
					b.ResetTimer()
					if err := p.Run(ctx, b.N); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

// BenchmarkAsyncSend measures an asynchronous DATA send (copy + queue), the cost
// the computing thread pays per halo in AIAC mode.
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

func TestPingPongWorks(t *testing.T) {
	for _, tr := range transports {
		for _, plain := range []bool{true, false} {
			p, err := NewPingPong(context.Background(), tr, plain, 100000)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Measure(context.Background(), 0, 5)
			p.Close()
			if err != nil || r.RoundTrips < 5 || r.OneWay() <= 0 || r.Bandwidth() <= 0 {
				t.Fatalf("%s plain=%v: %+v %v", tr, plain, r, err)
			}
		}
	}
}

func TestComparePingPong(t *testing.T) {
	plain, rm, err := ComparePingPong(context.Background(), "unix", 1024, 2, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !plain.Plain || rm.Plain || plain.RoundTrips < 20 || rm.RoundTrips < 20 || rm.Size != 1024 {
		t.Fatalf("plain %+v rmnp %+v", plain, rm)
	}
}
