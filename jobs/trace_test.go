package jobs

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestSweepHist(t *testing.T) {
	tests := []struct {
		name     string
		sweeps   []time.Duration
		mean     float64
		median   float64 // expected Quantile(0.5), within the bucket's factor of 2
		buckets  int
		min, max float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0},
		{"one", []time.Duration{3 * time.Millisecond}, 0.003, 0.003, 12, 0.003, 0.003},
		{"spread", []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, 10 * time.Millisecond},
			0.00325, 0.001, 14, 0.001, 0.01},
		{"sub-microsecond", []time.Duration{100 * time.Nanosecond}, 1e-7, 1e-7, 1, 1e-7, 1e-7},
		{"very long", []time.Duration{time.Hour}, 3600, 3600, SweepBuckets, 3600, 3600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h SweepHist
			for _, d := range tc.sweeps {
				h.Add(d)
			}
			if h.Count != len(tc.sweeps) || math.Abs(h.Mean()-tc.mean) > 1e-12 || len(h.Buckets) != tc.buckets {
				t.Errorf("count %d mean %g buckets %d, want %d %g %d", h.Count, h.Mean(), len(h.Buckets), len(tc.sweeps), tc.mean, tc.buckets)
			}
			if h.Min != tc.min || h.Max != tc.max {
				t.Errorf("min %g max %g, want %g %g", h.Min, h.Max, tc.min, tc.max)
			}
			if q := h.Quantile(0.5); tc.median > 0 && (q < tc.median/2 || q > tc.median*2) {
				t.Errorf("median %g, want about %g", q, tc.median)
			}
			if q0, q1 := h.Quantile(0), h.Quantile(1); q0 > q1 || q1 > h.Max || q0 < h.Min {
				t.Errorf("quantiles 0, 1 = %g, %g outside [%g, %g]", q0, q1, h.Min, h.Max)
			}
		})
	}
}

// TestNodeTraceSize bounds a node's trace as stored: a million sweeps and
// two neighbours stay under half a kilobyte of JSON.
func TestNodeTraceSize(t *testing.T) {
	tr := NodeTrace{Points: 64 * 64 * 64 / 64}
	for i := range 1_000_000 {
		tr.Sweeps.Add(time.Duration(1+i%5000) * time.Microsecond)
	}
	for p := range 2 {
		tr.Links = append(tr.Links, LinkTrace{Peer: p, Network: "infiniband", Sent: 1e6, Received: 1e6,
			BytesSent: 1e10, BytesReceived: 1e10, Skipped: 12345, HandshakeMicros: 123456})
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 512 {
		t.Errorf("trace is %d bytes: %s", len(b), b)
	}
	t.Logf("%d bytes per node", len(b))
}

// TestRunRecordWallRoundTrip: a wall time stored as seconds reads back
// equal, to the nanosecond.
func TestRunRecordWallRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{2031819046, 1, 999_999_999, 3*time.Hour + 7} {
		if got := (RunRecord{WallSeconds: d.Seconds()}).Wall(); got != d {
			t.Errorf("%d ns read back as %d ns", d, got)
		}
	}
}
