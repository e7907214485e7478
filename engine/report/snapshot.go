package report

import (
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// Snapshot is the state of a whole run at one instant, emitted by the
// submitter at a bounded rate (at most 10 Hz).
type Snapshot struct {
	At      time.Time
	Elapsed time.Duration
	Nodes   []solve.NodeStatus
	// GlobalSigma is the maximum local σ over the nodes (the detector's view,
	// not the true residual, which is computed after the run).
	GlobalSigma float64
	// Gateways are the gateway links' counters as the gateways last printed
	// them (a run across sites through gateways), for a live view of their
	// traffic, compression and queues.
	Gateways []GatewayReport `json:",omitempty"`
	// Gain is the live computing-gain estimate (GRIDHPC eq. 2): the time a
	// single node needed to reach GlobalSigma, divided by Elapsed; 0 if unknown.
	Gain float64 `json:",nullzero"`
	// Recoveries are the losses the run survived so far (the report's
	// Recoveries, live): which node was lost, where its part went, from
	// which checkpoint.
	Recoveries []jobs.Recovery `json:",omitempty"`
}
