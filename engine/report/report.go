package report

import (
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// Report is the outcome of a run as the submitter measured it.
type Report struct {
	Spec    jobs.Spec
	Started time.Time
	// Wall is the run's time from sending the sub-tasks to the last result
	// (or the failure): ts of GRIDHPC eq. 2. Starting workers is not in it.
	Wall time.Duration
	// Outcome is "ok", "not converged" (a node hit max_iterations),
	// "failed" or "aborted" (interrupted).
	Outcome    string
	FailedNode string // the node that failed, when known
	Cause      string // why the run failed
	// FailedLog holds the last lines of the failed node's worker log as
	// the console received them (its stderr), unless Cause quotes them
	// already; the whole log stays on the node's host (gridtui logs).
	FailedLog []string `json:",omitempty"`
	// Recoveries are the lost nodes the run survived (docs/FAILURES.md).
	Recoveries []jobs.Recovery `json:",omitempty"`
	Nodes      []NodeReport
	// Traffic sums the data-plane traffic per network; each message is
	// counted once (half of the sent+received sums of its two ends).
	Traffic []solve.NetTraffic
	Routes  []probe.Route
	Groups  []jobs.Group
	// Gateways are the run's gateway links (a run across sites whose nodes
	// cannot reach each other), as each gateway counted what it sent.
	Gateways []GatewayReport `json:",omitempty"`
	// Residual is the true global residual: σ of one more synchronous sweep
	// of the assembled solution. Checked is false when the run produced no
	// solution.
	Checked  bool
	Residual float64 `json:"true_residual"`
	// ResidualReported says the application could not measure Residual on
	// the solution: it is the largest σ the parts reported
	// (gridapp.Result.Reported).
	ResidualReported bool `json:",omitempty"`
	// Eps is the task's threshold; Figures are what the application
	// measured on the solution (error against an exact solution, checksums)
	// and Checks the conditions it checked on it (gridapp.Checker), as it
	// gave them; FiguresOK is false when the application's Result or one
	// of its checks failed.
	Eps       float64          `json:",omitempty"`
	Figures   []gridapp.Figure `json:",omitempty"`
	Checks    []gridapp.Check  `json:",omitempty"`
	FiguresOK bool             `json:",omitempty"`
	// T1 is the single-node time of this problem in the results store that
	// Table IV compares the run with (jobs.Results.SingleNodeReference, this
	// run included) and Gain = T1 / Wall (GRIDHPC eq. 2); both 0 when
	// unknown. T1Self is set when the run is that single-node run itself.
	T1     time.Duration `json:"t1_seconds,nullzero"`
	Gain   float64       `json:",nullzero"`
	T1Self bool
	// Grid and Inventory are the run's grid configuration and the key of
	// its inventory in the results store (jobs.RunConfig).
	Grid      string
	Inventory string
	Warnings  []string
	Outputs   []string
	RecordID  string // the results-store record, when recorded
	// Predicted is what package predict expected of the run from the runs
	// before it; nil without a usable trace.
	Predicted *Prediction `json:",omitempty"`
	// Unpredicted says why the runs before it, which traced the run's
	// problem, could not predict it (its scheme never traced, say); empty
	// with a prediction or with no trace of the problem at all.
	Unpredicted string `json:",omitempty"`
	// Solution is the assembled grid (nil unless the run completed).
	Solution []float64 `json:"-"`
	// Supersteps are a BSP program's supersteps as its Assemble gave them
	// (gridapp.Result.Supersteps), kept in the run's record for BSP
	// prediction; nil for other applications.
	Supersteps []gridapp.SuperstepGroup `json:"-"`
}

// NodeReport is one node's share of a run.
type NodeReport struct {
	Node        string
	Rank        int
	Group       int
	Coordinator bool
	// Part is the application's description of the node's share of the
	// problem (gridapp.PartDescriber), or its size in values.
	Part       string
	Cores      int
	State      solve.NodeState
	Iterations int
	Sigma      float64
	Converged  bool
	Compute    time.Duration
	Send       time.Duration
	Wait       time.Duration
	Traffic    []solve.NetTraffic
	// PeakRSS is the worker process's peak resident set (VmHWM) in bytes,
	// as it last reported it; 0 when unknown (not Linux, or no report).
	PeakRSS uint64 `json:"peak_rss_bytes,nullzero"`
	Err     string `json:"error,omitempty"`
	// Trace is the node's execution trace (sweep times, traffic per
	// neighbour) from its result; nil when it sent none.
	Trace *jobs.NodeTrace `json:",omitempty"`
	// OwnerHeld is the time its host's owner policy held the part, in
	// OwnerHolds holds (package owner); 0 when it never did.
	OwnerHeld  time.Duration `json:",omitempty"`
	OwnerHolds int           `json:",omitempty"`
}
