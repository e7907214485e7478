package solve

import (
	"math"
	"math/bits"
	"time"
)

// SweepBuckets is the number of buckets of a SweepHist: bucket i counts the
// sweeps that took [2^i, 2^(i+1)) microseconds (the last one everything
// longer, about 4.6 minutes and up), so a node's trace stays the same size
// whatever its iteration count.
const SweepBuckets = 28

// SweepHist is the compact distribution of one node's compute time per
// iteration (one sweep of its part): count, sum, extremes and a log2
// histogram. It is what dPerf (P2PDC's companion) replays as the node's
// computation between two exchanges.
type SweepHist struct {
	Count   int     `json:"count"`
	Seconds float64 `json:"seconds"` // sum over the sweeps
	Min     float64 `json:"min"`     // seconds
	Max     float64 `json:"max"`     // seconds
	// Buckets is the log2 histogram by microseconds; trailing zero buckets
	// are dropped.
	Buckets []uint32 `json:"buckets,omitempty"`
}

// Add records one sweep that took d.
func (h *SweepHist) Add(d time.Duration) {
	s := d.Seconds()
	if h.Count == 0 || s < h.Min {
		h.Min = s
	}
	h.Max = max(h.Max, s)
	h.Count++
	h.Seconds += s
	b := 0
	if us := d.Microseconds(); us > 0 {
		b = min(63-bits.LeadingZeros64(uint64(us)), SweepBuckets-1)
	}
	for len(h.Buckets) <= b {
		h.Buckets = append(h.Buckets, 0)
	}
	h.Buckets[b]++
}

// Mean is the mean compute time per sweep in seconds (0 with no sweep).
func (h SweepHist) Mean() float64 {
	if h.Count == 0 {
		return 0
	}
	return h.Seconds / float64(h.Count)
}

// Quantile estimates the q-quantile (0 ≤ q ≤ 1) of the sweep times in
// seconds, interpolating geometrically inside the bucket it falls in and
// clamping to [Min, Max].
func (h SweepHist) Quantile(q float64) float64 {
	var total uint64
	for _, c := range h.Buckets {
		total += uint64(c)
	}
	if total == 0 {
		return h.Mean()
	}
	rank := q * float64(total)
	var seen float64
	for i, c := range h.Buckets {
		if c == 0 {
			continue
		}
		if seen+float64(c) >= rank {
			frac := (rank - seen) / float64(c)
			lo := math.Ldexp(1, i) * 1e-6
			if i == 0 {
				lo = 0.5e-6
			}
			v := lo * math.Pow(2, frac)
			return min(max(v, h.Min), h.Max)
		}
		seen += float64(c)
	}
	return h.Max
}
