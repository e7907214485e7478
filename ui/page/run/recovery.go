package run

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/widget/list"
)

// The Run view's node table shows the losses the run survived
// (docs/FAILURES.md): a lost node whose part went elsewhere keeps a row of
// its own, marked lost, saying where its part went and from which
// checkpoint; the node that took a part says whose and from where.

// lostGlyph marks a lost node's row in the St column.
const lostGlyph = "✗"

// ApplyRecoveries takes the run's recoveries (the report's, once it has
// ended; the snapshots carry them while it runs) and marks them in the
// node table.
func (v *Model) ApplyRecoveries(recs []jobs.Recovery) {
	if len(recs) == 0 {
		return
	}
	v.recs = slices.Clone(recs)
	rows := make([]listRow, len(v.snap.Nodes))
	for j, i := range rankOrder(v.snap.Nodes) {
		rows[j] = nodeRow(&v.snap.Nodes[i], v.nodeHist[v.snap.Nodes[i].Node])
	}
	v.list.SetRows(withRecoveries(rows, v.recs))
}

// recoveryFrom says which checkpoint a recovery restarted from.
func recoveryFrom(r jobs.Recovery) string {
	switch {
	case r.From > 0:
		return "from it. " + strconv.FormatUint(r.From, 10)
	case r.FromStart:
		return "from the start"
	}
	return "from its newest checkpoint"
}

// withRecoveries returns rows with recs marked: the note of each node that
// took a part, and a row (after the others) for each lost node that holds
// none any more. The latest recovery of a node wins.
func withRecoveries(rows []listRow, recs []jobs.Recovery) []listRow {
	if len(recs) == 0 {
		return rows
	}
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.Key] = i
	}
	var lost []listRow
	seen := map[string]int{}
	for _, rc := range recs {
		took := ""
		if rc.Took > 0 {
			took = fmt.Sprintf(", in %v", rc.Took.Round(1e6))
		}
		if i, ok := at[rc.To]; ok {
			note := fmt.Sprintf("rank %d from %s (lost), %s%s", rc.Rank, rc.Node, recoveryFrom(rc), took)
			if rc.To == rc.Node {
				note = fmt.Sprintf("lost, restarted (%s), %s%s", rc.How, recoveryFrom(rc), took)
			}
			if e := rows[i].Cells[6]; e != "" && rows[i].Tone == toneErr {
				note = e + "; " + note
			}
			rows[i].Cells[6] = note
		}
		if _, ok := at[rc.Node]; ok {
			continue // it holds a part again (the same node, or a later move)
		}
		row := listRow{Key: rc.Node, Leaf: true, Tone: toneWarn, Cells: []string{rc.Node, lostGlyph + " ", strconv.Itoa(rc.Rank), "", "", "",
			fmt.Sprintf("lost (%s): rank %d → %s (%s), %s%s", rc.Cause, rc.Rank, rc.To, rc.How, recoveryFrom(rc), took)}}
		if j, ok := seen[rc.Node]; ok {
			lost[j] = row
			continue
		}
		seen[rc.Node] = len(lost)
		lost = append(lost, row)
	}
	return append(rows, lost...)
}

// Rows returns the node table's rows as drawn (the lost nodes' rows too).
func (v *Model) Rows() []list.Row { return v.list.Rows() }

// Logs returns the run's event log, oldest first.
func (v *Model) Logs() []engine.LogEvent { return v.logs }

// SetCursor selects the node table's row i.
func (v *Model) SetCursor(i int) { v.list.SetCursor(i) }
