package jobs

import (
	"fmt"
	"strconv"
	"strings"
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
	FromStart bool `json:"from_start,omitempty"`
	// Cluster lists, in a hybrid run, the ranks that rolled back with the
	// lost node's part (its cluster, linked synchronously), to From or,
	// with FromStart, to the start; the other parts resumed where they
	// stopped. Empty otherwise.
	Cluster  []int     `json:"cluster,omitempty"`
	Detected time.Time `json:"detected"`
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
	case len(r.Cluster) > 0 && r.From > 0:
		b += fmt.Sprintf(", its cluster (ranks %s) rolled back to iteration %d, the others where they stopped", rankList(r.Cluster), r.From)
	case len(r.Cluster) > 0:
		b += fmt.Sprintf(", its cluster (ranks %s) from the start, the others where they stopped", rankList(r.Cluster))
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

// rankList says ranks as "0, 1, 2".
func rankList(ranks []int) string {
	out := make([]string, len(ranks))
	for i, r := range ranks {
		out[i] = strconv.Itoa(r)
	}
	return strings.Join(out, ", ")
}
