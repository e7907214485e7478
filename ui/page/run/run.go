package run

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/widget/chart"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
)

// Run view limits: how much history it keeps.
const (
	sparkLen   = 12   // σ samples per node for the sparklines
	maxHistory = 4096 // global σ samples for the residual chart
	maxLog     = 500  // event log lines kept
)

// Model shows a live run: the grid of nodes by state, per-node iteration
// and σ with sparklines, the global residual on a log scale, traffic per
// network, the computing gain, elapsed time and the event log. It is fed
// engine.Snapshot and engine.LogEvent values on the console's tick and
// renders only what fits on the screen.
type Model struct {
	common   *Common
	spec     jobs.Spec
	started  bool
	running  bool
	snap     engine.Snapshot
	history  []chart.Sample
	nodeHist map[string][]float64
	logs     []engine.LogEvent
	list     list.Model
	outcome  string // key lines of the report once the run has ended
	report   string // the engine's full report
	// page is shown instead of the live panels: the full report (o), a
	// node's or an event's details (enter); pageKind says which.
	page     pager.Model
	pageKind int
	// events is the event log expanded to the whole view (e), scrollable
	// and filterable; its rows are rebuilt only while it is shown.
	events     list.Model
	showEvents bool
	// logSeq numbers the events appended so far (the events' row keys).
	logSeq int
	failed bool
	// aborted is set when the user asked to abort the live run: its end is
	// then an abort, not a failure, whatever error the engine returns.
	aborted bool
	// interrupted is set when the run ended because its context did without
	// the user's abort (engine.ErrRunAborted: the console's own context
	// ended, a deadline): an abort too, with the engine's reason.
	interrupted bool
	// finalGain is the computing gain of the run's report (0: unknown);
	// once the run has ended the header shows it instead of the live
	// estimate, so the two never disagree.
	finalGain float64
	// recs are the losses the run survived (runview_recovery.go).
	recs []jobs.Recovery
}

// AbortRequestMsg asks the root model to abort the live run (after the
// user confirms).
type AbortRequestMsg struct{}

// DrainRequestMsg asks the root model to drain Node from the live run (D
// on a node of the Run page; docs/FAILURES.md).
type DrainRequestMsg struct{ Node string }

// New returns an empty Run view (no run yet).
func New(c *Common) Model {
	return Model{
		common:   c,
		nodeHist: map[string][]float64{},
		list: newList(c, []column{
			{Title: "Node", Width: 12},
			{Title: "St", Width: 3},
			{Title: "Rank", Width: 4, Right: true},
			{Title: "Iter", Width: 7, Right: true},
			{Title: "σ", Width: 7, Right: true},
			{Title: "σ trend", Width: sparkLen},
			{Title: "Note", Width: 0},
		}),
		events: newList(c, []column{
			{Title: "Time", Width: 7},
			{Title: "Node", Width: 10},
			{Title: "Event", Width: 0},
		}),
	}
}

// Start resets the view for a new run of spec.
func (v *Model) Start(spec jobs.Spec) {
	*v = New(v.common)
	v.spec, v.started, v.running = spec, true, true
}

// Running reports whether a run is live.
func (v *Model) Running() bool { return v.running }

// MarkAborted records that the user asked to abort the live run, so that
// Finish shows the run as aborted rather than failed.
func (v *Model) MarkAborted() {
	if v.running {
		v.aborted = true
	}
}

// Aborted reports whether the last run ended because the user aborted it.
func (v *Model) Aborted() bool { return v.aborted }

// ApplySnapshot records a telemetry snapshot: it appends to the residual
// history and the per-node sparklines and rebuilds the node list.
func (v *Model) ApplySnapshot(s engine.Snapshot) {
	v.started = true
	v.snap = s
	if len(v.history) == maxHistory { // halve the resolution, keep the span
		for i := 0; i < maxHistory/2; i++ {
			v.history[i] = v.history[2*i+1]
		}
		v.history = v.history[:maxHistory/2]
	}
	v.history = append(v.history, chart.Sample{At: s.Elapsed, Sigma: s.GlobalSigma})
	order := rankOrder(s.Nodes)
	rows := make([]listRow, len(s.Nodes))
	for j, i := range order {
		n := &s.Nodes[i]
		h := v.nodeHist[n.Node]
		if len(h) == sparkLen {
			copy(h, h[1:])
			h = h[:sparkLen-1]
		}
		h = append(h, chart.Log10(n.Sigma)) // kept as log10: no logs per frame
		v.nodeHist[n.Node] = h
		rows[j] = nodeRow(n, h)
	}
	if len(s.Recoveries) > 0 {
		v.recs = s.Recoveries
	}
	v.list.SetRows(withRecoveries(rows, v.recs))
}

// ApplyReport takes the nodes' final states from the report of the run
// that has just ended, which its last snapshot may not show: the engine
// reports engine.StateAborted for the nodes the run stopped (interrupted,
// or another node failed) while their last telemetry still read active,
// inactive or starting. Iterations, σ and errors are the report's; the
// sparklines and the residual history are kept. Nodes the snapshots never
// showed (a run stopped before its first) are added. gain is the report's
// computing gain (0: unknown), the header's once the run has ended.
func (v *Model) ApplyReport(nodes []engine.NodeReport, gain float64) {
	v.finalGain = gain
	if len(nodes) == 0 {
		return
	}
	// A copy: the snapshot's slice may be shared with whoever sent it.
	cur := slices.Clone(v.snap.Nodes)
	at := make(map[string]int, len(cur))
	for i := range cur {
		at[cur[i].Node] = i
	}
	for _, r := range nodes {
		i, ok := at[r.Node]
		if !ok {
			cur = append(cur, engine.NodeStatus{Node: r.Node, Rank: r.Rank, Group: r.Group, Traffic: r.Traffic,
				Compute: r.Compute, Send: r.Send, Wait: r.Wait, PeakRSS: r.PeakRSS})
			i = len(cur) - 1
		}
		n := &cur[i]
		n.State, n.Iteration, n.Sigma, n.Err = r.State, r.Iterations, r.Sigma, r.Err
		if len(r.Traffic) > 0 {
			// A short run ends before a snapshot carries its traffic: the
			// report's figures are the final ones.
			n.Traffic, n.Compute, n.Send, n.Wait = r.Traffic, r.Compute, r.Send, r.Wait
		}
		if r.PeakRSS > 0 {
			n.PeakRSS = r.PeakRSS
		}
	}
	v.started = true
	v.snap.Nodes = cur
	rows := make([]listRow, len(cur))
	for j, i := range rankOrder(cur) {
		rows[j] = nodeRow(&cur[i], v.nodeHist[cur[i].Node])
	}
	v.list.SetRows(withRecoveries(rows, v.recs))
}

// ApplyGateways takes the gateway links' counters of the report of the run
// that has just ended: the gateways printed them as they stopped, after
// the last snapshot (which a short run may end before they printed any).
func (v *Model) ApplyGateways(gws []engine.GatewayReport) {
	if len(gws) > 0 {
		v.snap.Gateways = slices.Clone(gws)
	}
}

// rankOrder is the indices of nodes in rank order.
func rankOrder(nodes []engine.NodeStatus) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return nodes[a].Rank - nodes[b].Rank })
	return order
}

func nodeRow(n *engine.NodeStatus, hist []float64) listRow {
	r := listRow{Key: n.Node, Leaf: true, Cells: []string{
		n.Node, stateGlyph(n.State) + " ", strconv.Itoa(n.Rank), strconv.Itoa(n.Iteration), sci(n.Sigma), chart.SparklineLog(hist, sparkLen), n.Err,
	}}
	if h := n.Held; h != nil && n.Err == "" {
		// The host's owner policy holds the part: the others go on with
		// its last halos, which age.
		r.Cells[6], r.Tone = fmt.Sprintf("suspended by owner, halos %s stale: %s", h.Stale, h.Reason), toneWarn
		return r
	}
	switch n.State {
	case engine.StateFailed:
		r.Tone = toneErr
	case engine.StateTerminated:
		r.Tone = toneOK
	case engine.StateAborted:
		r.Tone = toneWarn
	case engine.StateInactive, engine.StateStarting:
		r.Tone = toneDim
	}
	return r
}

// Finish marks the run as ended with its summary (the engine's report) or
// the error that ended it. The view keeps the report's key lines (outcome,
// wall time, true residual, the application's check, gain, the
// prediction, warnings). A run the
// user aborted, or whose context ended (engine.ErrRunAborted), reads
// "aborted" rather than "failed".
func (v *Model) Finish(summary string, err error) {
	v.running = false
	v.report = summary
	v.outcome = keyLines(summary)
	switch {
	case err != nil && v.aborted:
		v.failed = true
		v.report = "run aborted by the user\n\n" + summary
		v.outcome = strings.TrimSpace("run aborted by the user\n" + v.outcome)
	case errors.Is(err, engine.ErrRunAborted):
		v.failed, v.interrupted = true, true
		v.report = err.Error() + "\n\n" + summary // "engine: run x aborted: interrupted: …"
		v.outcome = strings.TrimSpace(err.Error() + "\n" + v.outcome)
	case err != nil:
		v.failed = true
		v.report = "run failed: " + err.Error() + "\n\n" + summary
		v.outcome = strings.TrimSpace("run failed: " + err.Error() + "\n" + v.outcome)
	default:
		v.aborted = false // it ended on its own before the abort landed
	}
}

// keyLines picks the lines of a run report a user looks for first.
func keyLines(report string) string {
	var out []string
	for _, l := range strings.Split(report, "\n") {
		for _, p := range []string{"outcome", "failed", "wall time", "true global residual", "residual:", "application check", "computing gain", "predicted:", "warning"} {
			if strings.HasPrefix(strings.TrimSpace(l), p) {
				out = append(out, strings.TrimSpace(l))
				break
			}
		}
	}
	if len(out) == 0 {
		return strings.TrimSpace(report)
	}
	return strings.Join(out, "\n")
}

// View renders the Run view in the body area.
func (v Model) View() string {
	c, s := v.common, v.common.Styles
	if !v.started {
		return placeBody(c, s.Title.Render("No run yet")+"\n"+
			s.Dim.Render("Compose a job (3) and press r to start it; it will show here live."))
	}
	h := c.BodyHeight()
	out := []string{v.titleLine(), v.countsLine()}
	switch {
	case v.page.Open:
		out = append(out, v.page.Render(c.Width, h-2)...)
	case v.showEvents:
		out = append(out, strings.Split(v.events.Render(0, 2, c.Width, h-2), "\n")...)
	}
	if v.page.Open || v.showEvents {
		for i := range out {
			out[i] = fitLine(out[i], c.Width)
		}
		return strings.Join(out[:h], "\n")
	}
	if v.outcome != "" {
		for _, l := range strings.Split(v.outcome, "\n") {
			st := s.OK
			if v.failed {
				st = s.Err
			}
			out = append(out, st.Render(fitLine(l, c.Width)))
			if len(out) >= 2+max(2, v.common.BodyHeight()/4) {
				break
			}
		}
	}
	rest := h - len(out)
	if c.Width >= 120 {
		out = append(out, v.wideBody(len(out), rest)...)
	} else {
		out = append(out, v.narrowBody(len(out), rest)...)
	}
	for len(out) < h {
		out = append(out, "")
	}
	for i := range out {
		out[i] = fitLine(out[i], c.Width)
	}
	return strings.Join(out[:h], "\n")
}

// narrowBody stacks grid, chart, traffic, gateway links, node list and log in h lines
// from line top of the body.
func (v *Model) narrowBody(top, h int) []string {
	w := v.common.Width
	logH := min(3, max(1, h/6))
	chartH := min(4, max(2, h/5))
	trafficH := 1
	gridH := min(v.gridLines(w), 2)
	gws := gatewayLines(v.snap.Gateways, w, v.running)
	gws = gws[:min(len(gws), 2)]
	listH := h - logH - chartH - trafficH - gridH - len(gws)
	var out []string
	out = append(out, v.grid(w, gridH)...)
	out = append(out, chart.Residual(v.history, w, chartH)...)
	out = append(out, v.traffic(w, trafficH)...)
	out = append(out, gws...)
	if listH >= 3 {
		out = append(out, strings.Split(v.list.Render(0, top+len(out), w, listH), "\n")...)
	} else {
		chartH += listH
	}
	out = append(out, v.logLines(w, logH)...)
	return out
}

// wideBody puts the grid and node list left, chart, traffic, gateway links
// and log right, in h lines from line top of the body.
func (v *Model) wideBody(top, h int) []string {
	w := v.common.Width
	lw := w * 11 / 20
	rw := w - lw - 1
	gridH := min(v.gridLines(lw), h/3)
	left := v.grid(lw, gridH)
	left = append(left, strings.Split(v.list.Render(0, top+gridH, lw, h-gridH), "\n")...)
	chartH := max(3, h/3)
	right := []string{v.common.Styles.Title.Render("Global σ (log scale)")}
	right = append(right, chart.Residual(v.history, rw, chartH)...)
	right = append(right, "", v.common.Styles.Title.Render("Traffic per network"))
	right = append(right, v.traffic(rw, 4)...)
	if gws := gatewayLines(v.snap.Gateways, rw, v.running); len(gws) > 0 {
		right = append(right, "", v.common.Styles.Title.Render("Gateway links"))
		right = append(right, gws[:min(len(gws), 4)]...)
	}
	right = append(right, "", v.common.Styles.Title.Render("Events"))
	right = append(right, v.logLines(rw, h-len(right))...)
	out := make([]string, h)
	for i := range out {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = padRight(l, lw) + "│" + padRight(r, rw)
	}
	return out
}

// endState is the run's state as its header reads it: running, finished,
// failed or aborted.
func (v *Model) endState() string {
	switch {
	case v.failed && (v.aborted || v.interrupted):
		return "aborted"
	case v.failed:
		return "failed"
	case !v.running:
		return "finished"
	}
	return "running"
}

// countedStates is the order of the Run view's state counts.
var countedStates = [nodeStates]engine.NodeState{engine.StateActive, engine.StateInactive, engine.StateTerminated,
	engine.StateFailed, engine.StateAborted, engine.StateStarting}

// countsLine counts the nodes by state. A live or finished run's line is
// also the legend of the grid's glyphs, every state but aborted (which only
// a stopped run's report gives) shown even at 0; a stopped run's line
// tallies only the states its nodes ended in, so that its failed and
// aborted counts fit in 80 columns.
func (v *Model) countsLine() string {
	var n [nodeStates]int
	for i := range v.snap.Nodes {
		if st := v.snap.Nodes[i].State; int(st) < len(n) {
			n[st]++
		}
	}
	s := v.common.Styles
	parts := make([]string, 0, len(countedStates))
	for _, st := range countedStates {
		if n[st] == 0 && (v.failed || st == engine.StateAborted) {
			continue
		}
		parts = append(parts, s.StateStyle(st).Render(stateGlyph(st)+" "+st.String())+" "+strconv.Itoa(n[st]))
	}
	line := strings.Join(parts, " · ")
	if v.failed && n[engine.StateActive]+n[engine.StateInactive]+n[engine.StateStarting]+n[engine.StateAborted] > 0 {
		// The run is over and its workers stopped: the states are the last
		// ones reported, not nodes still computing.
		line = "stopped, last states: " + line
	}
	return line
}

// gridLines is how many lines the whole node grid needs at width w.
func (v *Model) gridLines(w int) int {
	per := max(1, (w-1)/2)
	return (len(v.snap.Nodes) + per - 1) / per
}

// grid draws the nodes in rank order as state glyphs, h lines starting at
// the line that holds the selected node; runs of equal state share one
// styled span so a frame costs a few dozen style calls, not one per node.
func (v *Model) grid(w, h int) []string {
	nodes := v.snap.Nodes
	per := max(1, (w-1)/2)
	first := 0
	if sel, ok := v.list.Selected(); ok {
		if r, err := strconv.Atoi(sel.Cells[2]); err == nil {
			first = max(0, r/per-h+1)
		}
	}
	out := make([]string, 0, h)
	cells := v.common.Styles.StateCells()
	for line := first; line < first+h && line*per < len(nodes); line++ {
		var b strings.Builder
		b.Grow(per * 16)
		b.WriteByte(' ')
		end := min(len(nodes), (line+1)*per)
		for i := line * per; i < end; i++ {
			if st := nodes[i].State; int(st) < len(cells) {
				b.WriteString(cells[st])
			} else {
				b.WriteString("? ")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// netTotals is the traffic per network, in a stable order. Every message is
// counted by both its ends (engine.NetTraffic: "sent and received"), so the
// network's messages and bytes are half the nodes' sum, the figure the run
// report prints (engine/report.go); skipped sends are counted once, by the
// sender.
func netTotals(nodes []engine.NodeStatus) []engine.NetTraffic {
	var tot []engine.NetTraffic
	for i := range nodes {
		for _, t := range nodes[i].Traffic {
			j := slices.IndexFunc(tot, func(x engine.NetTraffic) bool { return x.Network == t.Network })
			if j < 0 {
				tot = append(tot, engine.NetTraffic{Network: t.Network})
				j = len(tot) - 1
			}
			tot[j].Messages += t.Messages
			tot[j].Bytes += t.Bytes
			tot[j].Skipped += t.Skipped
		}
	}
	for i := range tot {
		tot[i].Messages, tot[i].Bytes = tot[i].Messages/2, tot[i].Bytes/2
	}
	slices.SortFunc(tot, func(a, b engine.NetTraffic) int { return strings.Compare(a.Network, b.Network) })
	return tot
}

// traffic draws one bar per network, proportional to bytes.
func (v *Model) traffic(w, h int) []string {
	tot := netTotals(v.snap.Nodes)
	if len(tot) == 0 {
		return []string{"traffic: none yet"}
	}
	var all uint64
	for _, t := range tot {
		all += t.Bytes
	}
	s := v.common.Styles
	var out []string
	if h == 1 { // one line: shares only
		parts := make([]string, len(tot))
		for i, t := range tot {
			parts[i] = fmt.Sprintf("%s %s (%s msg)", t.Network, bytesText(t.Bytes), countText(t.Messages))
		}
		return []string{"traffic: " + strings.Join(parts, " · ")}
	}
	// The bar takes what the name, figures and skip count leave: 32 cells
	// of "%-10s %s %9s %6s msg" around it, then " N skipped".
	suffix := 0
	for _, t := range tot {
		if t.Skipped > 0 {
			suffix = max(suffix, len(" "+countText(t.Skipped)+" skipped"))
		}
	}
	barW := max(4, w-32-suffix)
	for _, t := range tot {
		if len(out) == h {
			break
		}
		frac := 0.0
		if all > 0 {
			frac = float64(t.Bytes) / float64(all)
		}
		st := s.Fast
		switch t.Network {
		case "ethernet":
			st = s.Ethernet
		case "unix":
			st = s.Unix
		}
		line := fmt.Sprintf("%-10s %s %9s %6s msg", t.Network, st.Render(progressBar(frac, barW)), bytesText(t.Bytes), countText(t.Messages))
		if t.Skipped > 0 {
			line += " " + countText(t.Skipped) + " skipped"
		}
		out = append(out, line)
	}
	return out
}
