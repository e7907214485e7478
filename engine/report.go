package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/columns"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/termsafe"
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

// report builds the Report from what the submission gathered.
func (s *submission) report() *Report {
	end := s.finished
	if end.IsZero() {
		end = time.Now()
	}
	rep := &Report{Spec: s.spec, Started: s.start, Wall: end.Sub(s.start), Outcome: "ok",
		Routes: s.dialledRoutes(), Groups: s.plan.Groups, Warnings: s.plan.Warnings,
		Gateways: gatewayReports(s.gateways), Recoveries: s.recoveries}
	if s.failed != nil {
		rep.Outcome, rep.FailedNode, rep.Cause = s.outcome, s.failed.Node, s.failed.Cause
		rep.FailedLog = s.failedLog()
	}
	nets := map[string]*solve.NetTraffic{}
	var order []string
	for r, st := range s.statuses {
		g := s.plan.GroupOf(r)
		nr := NodeReport{Node: st.Node, Rank: r, Group: g, Cores: s.plan.Cores[r],
			State: st.State, Iterations: st.Iteration, Sigma: st.Sigma, Compute: st.Compute, Send: st.Send,
			Wait: st.Wait, Traffic: st.Traffic, PeakRSS: st.PeakRSS, Err: st.Err}
		nr.Part = s.plan.describePart(r)
		if s.failed != nil && !st.State.Final() {
			// The run stopped it (msgAbort): it is not computing any more.
			nr.State = solve.StateAborted
		}
		nr.Coordinator = g >= 0 && s.plan.Groups[g].Coordinator == st.Node
		if h := s.headers[r]; h != nil {
			nr.Converged = h.Converged
			nr.Trace = &jobs.NodeTrace{Points: h.Count, Sweeps: h.Sweeps, Links: h.Links}
			nr.OwnerHeld, nr.OwnerHolds = h.OwnerHeld, h.OwnerHolds
			if !h.Converged && rep.Outcome == "ok" {
				rep.Outcome = "not converged"
			}
		}
		for _, t := range st.Traffic {
			nt := nets[t.Network]
			if nt == nil {
				nt = &solve.NetTraffic{Network: t.Network}
				nets[t.Network] = nt
				order = append(order, t.Network)
			}
			nt.Messages += t.Messages
			nt.Bytes += t.Bytes
			nt.Skipped += t.Skipped
		}
		rep.Nodes = append(rep.Nodes, nr)
	}
	for _, n := range order {
		t := *nets[n]
		t.Messages, t.Bytes = t.Messages/2, t.Bytes/2
		rep.Traffic = append(rep.Traffic, t)
	}
	return rep
}

// finishReport is "aggregate the final result": assemble the parts, measure
// the true residual and the application's checks, write the outputs,
// compute the gain and record the run (failed runs too).
func finishReport(rep *Report, s *submission, opt RunOptions) error {
	var firstErr error
	rep.Eps = s.plan.Task.Eps
	if s.disk != nil {
		ok := s.failed == nil && s.complete()
		s.values = nil // the mapping ends here
		if err := s.disk.unmap(); err != nil {
			firstErr = fmt.Errorf("engine: solution file %s: %w", s.disk.path, err)
		}
		if ok {
			rep.Outputs = append(rep.Outputs, s.disk.path)
			rep.Warnings = append(rep.Warnings, s.disk.note())
		} else {
			os.Remove(s.disk.path) // a failed run's pieces are no solution
		}
	} else if s.failed == nil && s.complete() {
		firstErr = assembleApp(rep, s)
	}
	if firstErr != nil && rep.Outcome == "ok" {
		// The solution was computed but not delivered: the run is not ok,
		// and its record says why.
		rep.Outcome, rep.Cause = jobs.OutcomeFailed, firstErr.Error()
	}
	rep.Grid, rep.Inventory = s.gridLabel(), s.inventory
	rec := runRecord(rep, s)
	if rep.Outcome == "ok" { // t1 and the prediction: the same application's runs (jobs.Instance, predict.Problem)
		setGain(rep, rec, opt.StoreDir)
		setPrediction(rep, s, opt.StoreDir)
	}
	if !opt.NoRecord {
		if err := recordRun(rep, &rec, opt); err != nil {
			rep.Warnings = append(rep.Warnings, err.Error())
		}
	}
	return firstErr
}

// assembleApp is "results aggregation": the application's Assemble gathers
// the parts and measures the solution, its checks (gridapp.Checker) judge
// it, and the solution is written as the job's output section asks.
func assembleApp(rep *Report, s *submission) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w %q: panic in Assemble or Check: %v", solve.ErrApplication, s.spec.App, r)
		}
	}()
	res, err := s.plan.App.Assemble(s.plan.Values, s.plan.Task, s.values)
	if err != nil {
		return fmt.Errorf("%w %q: assemble solution: %w", solve.ErrApplication, s.spec.App, err)
	}
	rep.Solution, rep.Checked = res.Solution, true
	rep.Residual, rep.Figures, rep.FiguresOK = res.Residual, res.Figures, res.OK
	rep.ResidualReported = res.Reported
	rep.Supersteps = res.Supersteps
	if c, ok := s.plan.App.(gridapp.Checker); ok {
		rep.Checks = c.Check(s.plan.Values, s.plan.Task, res)
		for _, ch := range rep.Checks {
			rep.FiguresOK = rep.FiguresOK && ch.OK
		}
	}
	return writeOutputs(rep, s.plan, res)
}

// describePart is the report's part column for rank r: the application's
// description (gridapp.PartDescriber), else the part's size.
func (p *Plan) describePart(r int) string {
	if r < 0 || r >= len(p.Task.Parts) {
		return "–"
	}
	if d, ok := p.App.(gridapp.PartDescriber); ok {
		return d.DescribePart(p.Values, p.Task, r)
	}
	return fmt.Sprintf("%d values", p.Task.Parts[r].Size)
}

// outputBase makes the job's output directory and returns the base name of
// the run's files in it: name-start.
func outputBase(rep *Report) (string, error) {
	dir := rep.Spec.Output.Dir
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("engine: output directory %s: %w", dir, err)
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%s", rep.Spec.Name, rep.Started.UTC().Format("20060102T150405"))), nil
}

// writeOutputs writes the solution as the job's output section asks, the
// one path for every application: VTI and raw files of the grid an
// application says it has (gridapp.Gridded), then the files an application
// writes itself (gridapp.Outputter). An application that can do neither
// was refused before the run started (jobs.Spec.Problems).
func writeOutputs(rep *Report, p *Plan, res gridapp.Result) error {
	o := rep.Spec.Output
	if !o.VTI && !o.Raw {
		return nil
	}
	base, err := outputBase(rep)
	if err != nil {
		return err
	}
	if g, ok := p.App.(gridapp.Gridded); ok {
		grid := g.GridShape(p.Values)
		if o.VTI {
			var buf bytes.Buffer
			if err := jobs.WriteVTI(&buf, grid, res.Solution); err != nil {
				return fmt.Errorf("%w %q: %w", solve.ErrApplication, rep.Spec.App, err)
			}
			if err := os.WriteFile(base+".vti", buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("engine: write %s.vti: %w", base, err)
			}
			rep.Outputs = append(rep.Outputs, base+".vti")
		}
		if o.Raw {
			what := rep.Spec.App + " " + formatParams(p.Values.Encode())
			if err := jobs.WriteRaw(base+".raw", grid, res.Solution, what); err != nil {
				return fmt.Errorf("%w %q: %w", solve.ErrApplication, rep.Spec.App, err)
			}
			rep.Outputs = append(rep.Outputs, base+".raw")
		}
	}
	if w, ok := p.App.(gridapp.Outputter); ok && o.VTI {
		files, err := w.WriteOutput(p.Values, p.Task, res, base)
		rep.Outputs = append(rep.Outputs, files...)
		if err != nil {
			return fmt.Errorf("%w %q: write output: %w", solve.ErrApplication, rep.Spec.App, err)
		}
	}
	return nil
}

// WriteText prints the report for a terminal: outcome, wall time, the
// nodes with their iterations and times, the true residual and the
// complementarity check, traffic per network and the computing gain.
// Control characters from outside (a log tail, a remote error) are quoted.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	problem := formatParams(r.Spec.Params)
	fmt.Fprintf(&b, "run %s: %s, %s, %s iterations (%s detector), %d nodes\n",
		r.Spec.Name, r.Spec.App, problem, r.Spec.Scheme, r.Spec.Detector, len(r.Nodes))
	fmt.Fprintf(&b, "outcome:   %s\n", r.Outcome)
	if r.Cause != "" {
		who := "run"
		if r.FailedNode != "" {
			who = "node " + r.FailedNode
		}
		fmt.Fprintf(&b, "cause:     %s: %s\n", who, r.Cause)
	}
	for _, rc := range r.Recoveries {
		fmt.Fprintf(&b, "recovered: %s\n", rc)
	}
	for i, l := range r.FailedLog {
		head := "           "
		if i == 0 {
			head = "its log:   "
		}
		fmt.Fprintf(&b, "%s%s\n", head, l)
	}
	fmt.Fprintf(&b, "wall time: %s\n", r.Wall.Round(time.Millisecond))
	tw := columns.NewWriter(&b, 2)
	fmt.Fprintln(tw, "rank\tnode\tgroup\tpart\tcores\tstate\titerations\tlocal σ\tcompute\tsend\twait\tpeak RSS")
	for _, n := range r.Nodes {
		c := ""
		if n.Coordinator {
			c = "*"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d%s\t%s\t%d\t%s\t%d\t%.3g\t%s\t%s\t%s\t%s\n", n.Rank, n.Node, n.Group, c, orDash(n.Part), n.Cores,
			n.State, n.Iterations, n.Sigma, n.Compute.Round(time.Millisecond), n.Send.Round(time.Millisecond), n.Wait.Round(time.Millisecond),
			formatRSS(n.PeakRSS))
	}
	tw.Flush()
	fmt.Fprintln(&b, "(* coordinator)")
	r.writeOwnerHolds(&b)
	if r.Checked {
		r.writeFigures(&b)
	} else {
		fmt.Fprintln(&b, "true global residual: not computed (no complete solution)")
	}
	r.writeRoutes(&b)
	r.writeTraffic(&b)
	r.writeGateways(&b)
	r.writeGain(&b)
	r.writePrediction(&b)
	for _, o := range r.Outputs {
		fmt.Fprintf(&b, "wrote %s\n", o)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	if r.RecordID != "" {
		fmt.Fprintf(&b, "recorded as %s\n", r.RecordID)
	}
	// The one place the report's text leaves: names, a worker's log tail,
	// a remote error and a program's output all pass through termsafe.
	_, err := io.WriteString(w, termsafe.Text(b.String()))
	return err
}

// writeGain prints the computing gain, or why it is unknown.
func (r *Report) writeGain(b *strings.Builder) {
	switch {
	case r.Gain > 0 && r.T1Self:
		what := r.Spec.App + " " + formatParams(r.Spec.Params)
		fmt.Fprintf(b, "computing gain: C_g = t1/ts = %.2f (this run is the fastest single-node run: t1 of later runs of %s)\n", r.Gain, what)
	case r.Gain > 0:
		fmt.Fprintf(b, "computing gain: C_g = t1/ts = %s / %s = %.2f\n", r.T1.Round(time.Millisecond), r.Wall.Round(time.Millisecond), r.Gain)
	case r.Outcome != "ok":
		fmt.Fprintf(b, "computing gain: unknown (the run did not complete: %s)\n", r.Outcome)
	default:
		where := ""
		switch r.Inventory {
		case "":
		case jobs.InventoryEmbedded:
			where = " on the embedded local grid"
		default:
			where = " on " + jobs.InventoryName(r.Inventory)
		}
		fmt.Fprintf(b, "computing gain: unknown (no single-node run of this problem%s in the results store: run it once with --nodes 1)\n", where)
	}
}

// writeRoutes lists each neighbour pair's network (Algorithm 1), or counts
// them for large runs.
func (r *Report) writeRoutes(b *strings.Builder) {
	if len(r.Routes) == 0 {
		return
	}
	if len(r.Routes) <= 8 {
		fmt.Fprint(b, "networks:")
		for _, rt := range r.Routes {
			fmt.Fprintf(b, "  %s↔%s %s", rt.A, rt.B, rt.Network)
			if rt.Via != "" {
				fmt.Fprintf(b, " via %s", rt.Via)
			}
		}
		fmt.Fprintln(b)
		return
	}
	count := map[probe.Kind]int{}
	var kinds []probe.Kind
	for _, rt := range r.Routes {
		if count[rt.Network] == 0 {
			kinds = append(kinds, rt.Network)
		}
		count[rt.Network]++
	}
	fmt.Fprintf(b, "networks: %d neighbour pairs:", len(r.Routes))
	for _, k := range kinds {
		fmt.Fprintf(b, " %d %s", count[k], k)
	}
	fmt.Fprintln(b)
}

func (r *Report) writeTraffic(b *strings.Builder) {
	if len(r.Traffic) == 0 {
		fmt.Fprintln(b, "traffic: none")
		return
	}
	nets := slices.Clone(r.Traffic)
	slices.SortFunc(nets, func(a, b solve.NetTraffic) int { return strings.Compare(a.Network, b.Network) })
	fmt.Fprint(b, "traffic:")
	for _, t := range nets {
		fmt.Fprintf(b, "  %s %d msgs %s", t.Network, t.Messages, formatBytes(t.Bytes))
		if t.Skipped > 0 {
			fmt.Fprintf(b, " (%d skipped)", t.Skipped)
		}
	}
	fmt.Fprintln(b)
}

// formatRSS prints a peak resident set in MiB ("-" when unknown).
func formatRSS(n uint64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func formatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// formatParams lists an application's parameters as the job gave them.
func formatParams(params map[string]string) string {
	if len(params) == 0 {
		return "default parameters"
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " = " + params[k]
	}
	return strings.Join(parts, ", ")
}

// writeFigures prints the true residual (or, when the application could not
// measure one, the residual its parts reported, called so) and the
// application's figures.
func (r *Report) writeFigures(b *strings.Builder) {
	if r.ResidualReported {
		fmt.Fprintf(b, "residual: %.3e (ε = %g), the largest σ the parts reported: not measured on the solution\n", r.Residual, r.Eps)
	} else {
		fmt.Fprintf(b, "true global residual: %.3e (ε = %g)\n", r.Residual, r.Eps)
	}
	if k := r.Spec.Iterations; k > 0 {
		fmt.Fprintf(b, "exactly %d sweeps of every part (iterations = %d): the residual is what they leave, not a convergence test\n", k, k)
	}
	verdict := "OK"
	if !r.FiguresOK {
		verdict = "FAILED"
	}
	for _, f := range r.Figures {
		text := f.Text
		if text == "" {
			text = fmt.Sprintf("%.3g", f.Value)
		}
		fmt.Fprintf(b, "%s: %s\n", f.Name, text)
	}
	for _, c := range r.Checks {
		text := c.Text
		if text == "" {
			text = fmt.Sprintf("%.3g", c.Value)
		}
		ok := "ok"
		if !c.OK {
			ok = "FAILED"
		}
		fmt.Fprintf(b, "%s: %s %s\n", c.Name, text, ok)
	}
	fmt.Fprintf(b, "application check: %s\n", verdict)
}

// failedLogLines is how many lines of a failed node's log the report
// carries.
const failedLogLines = 8

// failedLog returns the last lines of the failed node's log as its worker's
// stderr brought them to the console, nil when there are none or the cause
// (a worker's exit) quotes them already.
func (s *submission) failedLog() []string {
	w := s.workers[s.failed.Node]
	if w == nil {
		return nil
	}
	tail := strings.TrimRight(w.LogTail(), "\n")
	if tail == "" {
		return nil
	}
	lines := strings.Split(tail, "\n")
	if strings.Contains(s.failed.Cause, lines[len(lines)-1]) {
		return nil
	}
	return lines[max(0, len(lines)-failedLogLines):]
}

// orDash returns s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// writeOwnerHolds says which parts their host's owner policy held, and for
// how long: the run went on without them (asynchronous) or waited.
func (r *Report) writeOwnerHolds(b *strings.Builder) {
	for _, n := range r.Nodes {
		if n.OwnerHolds == 0 {
			continue
		}
		times := "once"
		if n.OwnerHolds > 1 {
			times = fmt.Sprintf("%d times", n.OwnerHolds)
		}
		fmt.Fprintf(b, "owner policy: %s suspended by its owner %s, %s in all\n", n.Node, times, n.OwnerHeld.Round(time.Second))
	}
}
