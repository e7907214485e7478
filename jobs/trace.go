package jobs

import (
	"github.com/gridtui/gridtui/engine/solve"
)

// SweepBuckets is the number of buckets of a SweepHist (solve.SweepBuckets).
const SweepBuckets = solve.SweepBuckets

// SweepHist is one node's compute time per sweep (solve.SweepHist, which
// Solve records).
type SweepHist = solve.SweepHist

// LinkTrace is one node's traffic with one neighbour over a run: the
// network Algorithm 1 chose for the pair, whether the link was synchronous,
// and the data-plane counters of both directions.
type LinkTrace struct {
	Peer     int    `json:"peer"` // the neighbour's rank
	Network  string `json:"network"`
	Async    bool   `json:"async,omitempty"`
	Sent     uint64 `json:"sent"`     // messages sent (DATA and CTRL)
	Received uint64 `json:"received"` // messages received
	// BytesSent and BytesReceived are on the wire, headers included.
	BytesSent     uint64 `json:"bytes_sent"`
	BytesReceived uint64 `json:"bytes_received"`
	// Skipped counts asynchronous sends skipped or replaced (AIAC rule).
	Skipped uint64 `json:"skipped,omitempty"`
	// HandshakeMicros is how long the pre-flight connection of the link
	// took on the node that dialled it, in microseconds: TCP's handshake
	// and RMNP's, two round trips; 0 on the node that accepted it.
	HandshakeMicros uint64 `json:"handshake_us,omitempty"`
}

// NodeTrace is the execution trace of one node kept with its run: what the
// predictor (dPerf's replay) needs, bounded in size whatever the run's
// length — the sweep-time distribution and one entry per neighbour.
type NodeTrace struct {
	// Points is the number of grid points (unknowns) the node owned; the
	// predictor scales compute by it.
	Points int         `json:"points,omitempty"`
	Sweeps SweepHist   `json:"sweeps"`
	Links  []LinkTrace `json:"links,omitempty"`
}
