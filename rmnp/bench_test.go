package rmnp

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
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

// BenchmarkPingPong measures round trips through RMNP and, as the baselines in the
// same run, over a plain net.Conn and over a plain net.Conn carrying RMNP's frame
// layout (framed). MB/s counts both directions (2×size per op).
func BenchmarkPingPong(b *testing.B) {
	for _, tr := range transports {
		for _, size := range benchSizes {
			for _, kind := range []string{"plain", "framed", "rmnp"} {
				b.Run(fmt.Sprintf("%s/%s/%s", tr, sizeName(size), kind), func(b *testing.B) {
					ctx := context.Background()
					p, err := newPingPong(ctx, tr, kind != "rmnp", kind == "framed", size, 0)
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

// TestFramedPingPong checks the framed baseline echoes intact messages (small ones
// copied next to their header, large ones written with writev) and that the
// comparison reports it apart, with the CPU time measured.
func TestFramedPingPong(t *testing.T) {
	ctx := context.Background()
	for _, tr := range transports {
		for _, size := range []int{8, smallWrite + 1000} {
			p, err := NewFramedPingPong(ctx, tr, size)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.bufA {
				p.bufA[i] = byte(i * 7)
			}
			err = p.Run(ctx, 5)
			ok := true
			for i := range p.bufA {
				ok = ok && p.bufA[i] == byte(i*7)
			}
			p.Close()
			if err != nil || !ok {
				t.Fatalf("%s %d B: %v, content intact %v", tr, size, err, ok)
			}
		}
	}
	plain, framed, rm, err := CompareFramedPingPong(ctx, "tcp", 64<<10, 1, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Framed || !framed.Framed || !framed.Plain || rm.Plain || framed.RoundTrips < 10 {
		t.Fatalf("plain %+v framed %+v rmnp %+v", plain, framed, rm)
	}
	if runtime.GOOS == "linux" && (framed.OneWayCPU() <= 0 || rm.OneWayCPU() <= 0) {
		t.Fatalf("CPU time not measured: framed %+v rmnp %+v", framed, rm)
	}
}

// BenchmarkStream measures streaming bandwidth (StreamWindow messages per
// acknowledgement, as osu_bw) through RMNP and the two baselines. MB/s counts the
// payload moved one way.
func BenchmarkStream(b *testing.B) {
	for _, tr := range transports {
		for _, size := range benchSizes[2:] {
			for _, kind := range []string{"plain", "framed", "rmnp"} {
				b.Run(fmt.Sprintf("%s/%s/%s", tr, sizeName(size), kind), func(b *testing.B) {
					ctx := context.Background()
					p, err := newPingPong(ctx, tr, kind != "rmnp", kind == "framed", size, StreamWindow)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if err := p.Run(ctx, 1); err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(StreamWindow * size))
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

// TestStream checks that a stream moves whole windows on every transport and kind
// and that its figures count messages, not round trips.
func TestStream(t *testing.T) {
	ctx := context.Background()
	for _, tr := range transports {
		for _, kind := range []string{"plain", "framed", "rmnp"} {
			p, err := newPingPong(ctx, tr, kind != "rmnp", kind == "framed", 70000, 5)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Measure(ctx, 0, 4)
			var got uint64
			if kind == "rmnp" {
				got = linkStats(t, p.b).MessagesReceived
			}
			p.Close()
			if err != nil || r.Window != 5 || r.RoundTrips < 4 || r.OneWay() != r.Elapsed/time.Duration(5*r.RoundTrips) ||
				r.Bandwidth() <= 0 {
				t.Fatalf("%s %s: %+v, %v", tr, kind, r, err)
			}
			// Warm-up (3 windows) and the measured windows, every message received.
			if want := uint64(5 * (3 + r.RoundTrips)); kind == "rmnp" && got != want {
				t.Fatalf("%s: far end received %d messages, want %d", tr, got, want)
			}
		}
	}
	if _, err := NewStream(ctx, "unix", true, 8, 0); err == nil {
		t.Fatal("stream with an empty window accepted")
	}
}
