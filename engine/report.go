package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/report"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

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
			what := rep.Spec.App + " " + report.FormatParams(p.Values.Encode())
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
