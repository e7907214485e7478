package rmnpbench

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

var (
	transports = []string{"tcp", "unix"}
	benchSizes = []int{8, 1 << 10, 64 << 10, 512 << 10, 4 << 20}
)

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// benchPairs runs one sub-benchmark per transport, size and kind: window 0 is the
// ping-pong (b.SetBytes counts both directions), a positive window the stream
// (the payload moved one way).
func benchPairs(b *testing.B, sizes []int, window int) {
	for _, tr := range transports {
		for _, size := range sizes {
			for _, kind := range []Kind{Plain, Framed, RMNP} {
				b.Run(fmt.Sprintf("%s/%s/%s", tr, sizeName(size), kind), func(b *testing.B) {
					ctx := context.Background()
					p, err := New(ctx, kind, tr, size, window)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if err := p.Run(ctx, 3); err != nil {
						b.Fatal(err)
					}
					b.SetBytes(int64(2 * size))
					if window > 0 {
						b.SetBytes(int64(window * size))
					}
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

// BenchmarkPingPong measures round trips through RMNP and, as the baselines in the
// same run, over a plain net.Conn and over a plain net.Conn carrying RMNP's frame
// layout (framed). MB/s counts both directions (2×size per op).
func BenchmarkPingPong(b *testing.B) { benchPairs(b, benchSizes, 0) }

// BenchmarkStream measures streaming bandwidth (StreamWindow messages per
// acknowledgement, as osu_bw) through RMNP and the two baselines. MB/s counts the
// payload moved one way.
func BenchmarkStream(b *testing.B) { benchPairs(b, benchSizes[2:], StreamWindow) }

// TestPairs checks that every kind echoes intact messages on every transport
// (small ones copied next to their header, large ones written with writev and
// larger than the socket buffers) and that its figures count messages.
func TestPairs(t *testing.T) {
	ctx := context.Background()
	for _, tr := range transports {
		for _, kind := range Kinds {
			for _, size := range []int{8, 100000, 3 << 20} {
				p, err := New(ctx, kind, tr, size, 0)
				if err != nil {
					t.Fatal(err)
				}
				buf := p.Buffer()
				for i := range buf {
					buf[i] = byte(i * 7)
				}
				r, err := p.Measure(ctx, 0, 5)
				ok := true
				for i := range buf {
					ok = ok && buf[i] == byte(i*7)
				}
				p.Close()
				if err != nil || !ok || r.Kind != kind || r.RoundTrips < 5 || r.OneWay() != r.Elapsed/time.Duration(2*r.RoundTrips) || r.Bandwidth() <= 0 {
					t.Fatalf("%s %s %d B: %+v, %v, content intact %v", tr, kind, size, r, err, ok)
				}
			}
		}
	}
}

// TestCompare checks that a comparison reports each kind apart, with the CPU time
// measured.
func TestCompare(t *testing.T) {
	c, err := Compare(context.Background(), Options{Transport: "tcp", Size: 64 << 10, Rounds: 2, MinTrips: 10})
	if err != nil {
		t.Fatal(err)
	}
	if c.Plain.Kind != Plain || c.Framed.Kind != Framed || c.RMNP.Kind != RMNP || c.Framed.RoundTrips < 10 || c.Ratio() <= 0 {
		t.Fatalf("%+v", c)
	}
	if runtime.GOOS == "linux" && (c.Framed.OneWayCPU() <= 0 || c.RMNP.OneWayCPU() <= 0) {
		t.Fatalf("CPU time not measured: %+v", c)
	}
	if _, err := Compare(context.Background(), Options{Transport: "tcp", Size: 8, Rounds: 0, MinTrips: 1}); err == nil {
		t.Fatal("zero rounds accepted")
	}
}

// TestStream checks that a stream moves whole windows on every transport and kind
// and that its figures count messages, not round trips.
func TestStream(t *testing.T) {
	ctx := context.Background()
	for _, tr := range transports {
		for _, kind := range Kinds {
			p, err := New(ctx, kind, tr, 70000, 5)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Measure(ctx, 0, 4)
			st, _ := p.RMNPStats()
			p.Close()
			if err != nil || r.Window != 5 || r.RoundTrips < 4 || r.OneWay() != r.Elapsed/time.Duration(5*r.RoundTrips) ||
				r.Bandwidth() <= 0 {
				t.Fatalf("%s %s: %+v, %v", tr, kind, r, err)
			}
			// Warm-up (3 windows) and the measured windows, every message received.
			if want := uint64(5 * (3 + r.RoundTrips)); kind == RMNP && st.MessagesReceived != want {
				t.Fatalf("%s: far end received %d messages, want %d", tr, st.MessagesReceived, want)
			}
		}
	}
	if _, err := New(ctx, Plain, "unix", 8, -1); err == nil {
		t.Fatal("stream with a negative window accepted")
	}
	if _, err := New(ctx, Plain, "udp", 8, 0); err == nil {
		t.Fatal("unknown transport accepted")
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{3, 1, 2, 10})
	if s.Min != 1 || s.Median != 3 || s.Max != 10 || len(s.Sorted) != 4 || s.Sorted[3] != 10 {
		t.Fatalf("%+v", s)
	}
	if s := SpreadOf(nil); s.Sorted != nil || s.Max != 0 {
		t.Fatal("spread of nothing")
	}
}
