package run

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/engine"
)

// This file writes the detail views of the Run page's rows (enter on a
// row): everything the row holds, whole, as plain text the pager wraps.

// describeNode is the detail view of a node of the run: its state, its
// progress, its time and traffic, and its error, whole.
func (v *Model) describeNode(node string) (string, string) {
	for i := range v.snap.Nodes {
		n := &v.snap.Nodes[i]
		if n.Node != node {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "state: %s %s · rank %d · group %d\n", stateGlyph(n.State), n.State, n.Rank, n.Group)
		fmt.Fprintf(&b, "iterations: %d · local σ %s\n", n.Iteration, sci(n.Sigma))
		fmt.Fprintf(&b, "time: compute %s · send %s · wait %s\n", seconds(n.Compute), seconds(n.Send), seconds(n.Wait))
		if n.PeakRSS > 0 {
			fmt.Fprintf(&b, "peak memory: %s\n", bytesText(n.PeakRSS))
		}
		for _, t := range n.Traffic {
			fmt.Fprintf(&b, "traffic over %s: %s in %s messages", t.Network, bytesText(t.Bytes), countText(t.Messages))
			if t.Skipped > 0 {
				fmt.Fprintf(&b, ", %s skipped", countText(t.Skipped))
			}
			b.WriteByte('\n')
		}
		if n.Err != "" {
			fmt.Fprintf(&b, "\nerror:\n%s\n", n.Err)
		}
		var evs []string
		for _, e := range v.logs {
			if e.Node == node {
				evs = append(evs, v.eventLine(e))
			}
		}
		if len(evs) > 0 {
			fmt.Fprintf(&b, "\nevents:\n%s\n", strings.Join(evs, "\n"))
		}
		return "Node " + node, b.String()
	}
	return "Node " + node, "not in the run"
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + " s" }

// eventLine is one event of the log, whole: time since the run started,
// node, text.
func (v *Model) eventLine(e engine.LogEvent) string {
	at := time.Duration(0)
	if !v.snap.At.IsZero() {
		at = e.At.Sub(v.snap.At.Add(-v.snap.Elapsed))
	}
	return fmt.Sprintf("%s %-8s %s", clock(at.Truncate(100*time.Millisecond)), orDefault(e.Node, "run"), e.Text)
}
