package rmnpbench

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Result is the outcome of Pair.Measure.
type Result struct {
	Kind       Kind
	Transport  string
	Size       int
	RoundTrips int
	Elapsed    time.Duration
	// CPU is the CPU time of the whole process (both ends, every thread, user and
	// system) during Elapsed; zero where the platform does not report it.
	CPU time.Duration
	// Window is the number of messages per acknowledgement of a stream
	// (RoundTrips then counts windows), 0 for a ping-pong.
	Window int
}

// messages returns the one-way messages the result covers.
func (r Result) messages() int {
	if r.Window > 0 {
		return r.RoundTrips * r.Window
	}
	return 2 * r.RoundTrips
}

// OneWayCPU returns the process CPU time per one-way message: on a shared
// machine it moves less with other load than the wall-clock latency.
func (r Result) OneWayCPU() time.Duration {
	if r.RoundTrips == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.messages())
}

// OneWay returns the one-way latency of a ping-pong (half a round trip), or the
// time per message of a stream.
func (r Result) OneWay() time.Duration {
	if r.RoundTrips == 0 {
		return 0
	}
	return r.Elapsed / time.Duration(r.messages())
}

// Bandwidth returns the payload bytes per second in one direction: of a
// ping-pong, size over one-way latency; of a stream, what it moved.
func (r Result) Bandwidth() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.messages()*r.Size) / r.Elapsed.Seconds()
}

// faster reports whether r moved messages faster than s (any result beats an
// empty one).
func (r Result) faster(s Result) bool {
	return s.RoundTrips == 0 || r.Elapsed*time.Duration(s.RoundTrips) < s.Elapsed*time.Duration(r.RoundTrips)
}

// Options say what Compare measures.
type Options struct {
	Transport string        // "tcp" or "unix"
	Size      int           // message size in bytes
	Window    int           // messages per acknowledgement of a stream; 0 for a ping-pong
	Rounds    int           // alternating rounds (the best of each kind is kept)
	Round     time.Duration // duration of one round
	MinTrips  int           // minimum round trips (stream: windows) per round
}

// Comparison is the best round of each kind in one Compare.
type Comparison struct {
	Plain, Framed, RMNP Result
}

// Compare sets up a fresh pair of each kind, measures them alternately o.Rounds
// times, and returns the best round of each: on a shared machine the fastest
// round is the one least disturbed by other load, and alternating exposes every
// kind to the same conditions. The pairs are closed before it returns, so two
// Compares measure different connections.
func Compare(ctx context.Context, o Options) (Comparison, error) {
	if o.Rounds < 1 || o.MinTrips < 1 || o.Round < 0 {
		return Comparison{}, fmt.Errorf("rmnpbench: %d rounds of %v, %d trips: want at least one of each", o.Rounds, o.Round, o.MinTrips)
	}
	pairs := make([]*Pair, len(Kinds))
	for i, k := range Kinds {
		p, err := New(ctx, k, o.Transport, o.Size, o.Window)
		if err != nil {
			return Comparison{}, err
		}
		defer p.Close()
		pairs[i] = p
	}
	best := make([]Result, len(pairs))
	for range o.Rounds {
		for i, p := range pairs {
			r, err := p.Measure(ctx, o.Round, o.MinTrips)
			if err != nil {
				return Comparison{}, err
			}
			if r.faster(best[i]) {
				best[i] = r
			}
		}
	}
	var c Comparison
	for i, k := range Kinds {
		*c.of(k) = best[i]
	}
	return c, nil
}

func (c *Comparison) of(k Kind) *Result {
	switch k {
	case Plain:
		return &c.Plain
	case Framed:
		return &c.Framed
	}
	return &c.RMNP
}

// Ratio returns RMNP's bandwidth over plain's (1 is par, below 1 slower).
func (c Comparison) Ratio() float64 {
	if b := c.Plain.Bandwidth(); b > 0 {
		return c.RMNP.Bandwidth() / b
	}
	return 0
}

// Spread summarises repeated values: the least, the median and the largest, and
// all of them sorted (so that two modes show as two clusters).
type Spread struct {
	Min, Median, Max float64
	Sorted           []float64
}

// SpreadOf returns the spread of vs (zero for none).
func SpreadOf(vs []float64) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	return Spread{Min: s[0], Median: s[len(s)/2], Max: s[len(s)-1], Sorted: s}
}
