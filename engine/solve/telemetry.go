package solve

import "time"

// NodeState is a worker's activity state as the console shows it. Active,
// Inactive and Terminated are the states of the GRIDHPC activity graph
// (Figs. 7–8); Starting and Failed frame a node's life around them.
// Aborted is a report's final state of a node the run stopped before it
// terminated (the run was interrupted, or another node failed): its
// iterations and σ are the last it reported.
type NodeState uint8

// Node states, in the order a node normally passes through them. Values
// travel as numbers between workers and the submitter: new states go last.
const (
	StateStarting NodeState = iota
	StateActive
	StateInactive
	StateTerminated
	StateFailed
	StateAborted
)

var stateNames = [...]string{"starting", "active", "inactive", "terminated", "failed", "aborted"}

// String returns the lower-case name of the state.
func (s NodeState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// NetTraffic is the traffic a node exchanged over one network (by kind:
// "ethernet", "infiniband", "myrinet", "unix").
type NetTraffic struct {
	Network  string
	Messages uint64 // messages sent and received
	Bytes    uint64 // bytes on the wire, sent and received
	Skipped  uint64 // asynchronous sends skipped or replaced (AIAC rule)
}

// NodeStatus is one node's telemetry sample, sent by workers to their
// coordinator and forwarded, aggregated, to the submitter.
type NodeStatus struct {
	Node      string
	Rank      int
	Group     int
	State     NodeState
	Iteration int
	Sigma     float64 // local σ of the last sweep
	Traffic   []NetTraffic
	Compute   time.Duration // time spent in sweeps
	Send      time.Duration // time spent sending halos
	Wait      time.Duration // time blocked waiting for halos or tokens
	PeakRSS   uint64        `json:"peak_rss_bytes,nullzero"` // bytes; 0: unknown
	Err       string        `json:"error,omitempty"`         // why the node failed, when State is StateFailed
	// Load is the 1-minute load average of the node's host as the worker
	// last read it; nil when unknown.
	Load *float64 `json:",omitempty"`
	// Copies are the iterations of the part's checkpoints kept in memory
	// on this node and on its buddy, newest first; NoCheckpoints says the
	// application has none (docs/FAILURES.md).
	Copies        []uint64 `json:",omitempty"`
	NoCheckpoints bool     `json:",omitempty"`
	// CheckpointEvery is the part's checkpoint interval once it holds for
	// the rest of the attempt (0: not chosen yet, under the default
	// interval; the part then holds only the Copies it reports): it takes
	// every multiple of it after CheckpointSince.
	CheckpointEvery int `json:",omitempty"`
	CheckpointSince int `json:",omitempty"`
	// StepStarts are, in a task of several outer steps, the iterations at
	// which this part began its last steps, oldest first: StepStarts[i]
	// began the step after StepBase+i steps. After a loss in such a task
	// under the asynchronous or hybrid scheme the submitter maps the
	// iterations of the parts' checkpoints to steps with them, so that
	// every part restarts in the same step (CheckpointPlan.Step).
	StepStarts []uint64 `json:",omitempty"`
	StepBase   int      `json:",omitempty"`
	// Restored is the iteration the part's attempt started from (0: the
	// start): after a recovery, an asynchronous survivor's is where it
	// stopped.
	Restored uint64 `json:",omitempty"`
	// Held is set while the host's owner policy holds the part (package
	// owner): it does not sweep, and its neighbours go on with its last
	// halos (asynchronous) or wait for it (synchronous).
	Held *OwnerHold `json:",omitempty"`
	// Run is the attempt the sample is of (its control-plane run id): a
	// late sample of an attempt before is dropped.
	Run uint64 `json:",omitempty"`
}

// OwnerHold is why, and since how long, a part is held by its host's
// owner policy.
type OwnerHold struct {
	Reason string // the decision: "suspend: owner's CPU load 0.70 ≥ owner_cpu_busy 0.50 for 2m0s"
	// Stale is the time since the part's last sweep: how old the halos
	// its neighbours hold from it are.
	Stale time.Duration
}

// LogEvent is a line for the console's event log: tokens, activations,
// failures.
type LogEvent struct {
	At   time.Time
	Node string // empty for run-wide events
	Text string
}

// Final reports whether a node in state s has stopped for good.
func (s NodeState) Final() bool {
	return s == StateTerminated || s == StateFailed || s == StateAborted
}
