package jobs

import (
	"fmt"
	"time"
)

// Recovery is one lost node a run survived (docs/FAILURES.md): which node
// and why, where its part went, from which checkpoint, and how long until
// every part iterated again.
type Recovery struct {
	Node  string `json:"node"`
	Cause string `json:"cause"`
	Rank  int    `json:"rank"` // the lost node's part (−1: it held none)
	To    string `json:"to"`   // the node that took the part
	How   string `json:"how"`  // "spare", "new worker on its host", "second part on alpha-1"
	// From is the iteration every part rolled back to (a synchronous run);
	// 0 when each part restarted from its own newest checkpoint.
	From uint64 `json:"from_iteration,omitempty"`
	// FromStart says that the lost node's part restarted from the start of
	// the run (iteration 0): the loss came before its first checkpoint (a
	// synchronous run then restarts every part so).
	FromStart bool      `json:"from_start,omitempty"`
	Detected  time.Time `json:"detected"`
	// Took is the time from the detection to every part iterating again
	// (0: not seen); Seconds is the same in the store.
	Took    time.Duration `json:"-"`
	Seconds float64       `json:"seconds,omitempty"`
}

// String says the recovery in one line, as the report prints it.
func (r Recovery) String() string {
	b := fmt.Sprintf("%s lost (%s): rank %d on %s (%s)", r.Node, r.Cause, r.Rank, r.To, r.How)
	if r.Rank < 0 { // the console's loss: the run was resumed on its nodes
		b = fmt.Sprintf("%s lost (%s): %s on %s", r.Node, r.Cause, r.How, r.To)
	}
	switch {
	case r.From > 0:
		b += fmt.Sprintf(", every part rolled back to iteration %d", r.From)
	case r.FromStart:
		b += ", its part from the start"
	default:
		b += ", every part from its newest checkpoint"
	}
	if r.Took > 0 || r.Seconds > 0 {
		took := r.Took
		if took == 0 {
			took = time.Duration(r.Seconds * float64(time.Second))
		}
		b += fmt.Sprintf(", iterating again %v after the detection", took.Round(time.Millisecond))
	}
	return b
}
