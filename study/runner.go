package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// Done is what one run of a study gave.
type Done struct {
	Run      Run
	RecordID string        // the results-store record ("" if none)
	Outcome  string        // engine.Report.Outcome, or "error"
	Wall     time.Duration // measured by the submitter, workers' start excluded
	Err      error
}

// ExecFunc runs one job and reports the record it appended to the results
// store in dir. DefaultExec uses engine.Run; tests give their own.
type ExecFunc func(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, storeDir string) (Done, error)

// Options configure Execute.
type Options struct {
	// Inventory is the grid (required).
	Inventory *inventory.Inventory
	// StoreDir is the results store ("" = jobs.DataDir's default).
	StoreDir string
	// Exec runs one job; nil means DefaultExec.
	Exec ExecFunc
	// OnStart and OnDone, when set, are told of each run (progress lines).
	OnStart func(r Run, total int)
	OnDone  func(d Done, total int)
}

// Result is a finished (or interrupted) study.
type Result struct {
	Matrix  Matrix
	Grid    string // the inventory's source
	Started time.Time
	Elapsed time.Duration
	Runs    []Done
	Skipped []Skip
	// Records are the study's own runs as the results store holds them;
	// the tables are built from these only, never from older runs.
	Records []jobs.RunRecord
	Machine jobs.Machine
}

// DefaultExec runs spec with engine.Run on inv, starting and stopping its
// workers; the run is recorded in storeDir.
func DefaultExec(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, storeDir string) (Done, error) {
	rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inv, StoreDir: storeDir,
		Deploy: deploy.Options{HelloTimeout: 30 * time.Second}})
	if rep == nil {
		return Done{Outcome: "error", Err: err}, err
	}
	d := Done{RecordID: rep.RecordID, Outcome: rep.Outcome, Wall: rep.Wall, Err: err}
	if err == nil && rep.Checked && !rep.FiguresOK {
		d.Err = fmt.Errorf("study: run %s: the application's check failed", spec.Name)
	}
	return d, d.Err
}

// Execute plans m on the inventory and runs it: every run recorded in the
// results store, single-node runs first. A failed run does not stop the
// study (it shows as "-"); cancelling ctx does, and the result then holds
// the runs done so far together with ctx's error.
func Execute(ctx context.Context, m Matrix, opt Options) (*Result, error) {
	if opt.Inventory == nil {
		return nil, errors.New("study: no inventory")
	}
	runs, skips, err := Plan(m, opt.Inventory)
	if err != nil {
		return nil, err
	}
	exec := opt.Exec
	if exec == nil {
		exec = DefaultExec
	}
	dir, err := jobs.DataDir(opt.StoreDir)
	if err != nil {
		return nil, err
	}
	res := &Result{Matrix: m, Grid: opt.Inventory.Source, Started: time.Now(), Skipped: skips, Machine: jobs.LocalMachine()}
	var stopErr error
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			stopErr = fmt.Errorf("study: stopped after %d of %d runs: %w", len(res.Runs), len(runs), err)
			break
		}
		if opt.OnStart != nil {
			opt.OnStart(r, len(runs))
		}
		d, err := exec(ctx, r.Spec, opt.Inventory, dir)
		d.Run, d.Err = r, err
		if d.Outcome == "" {
			d.Outcome = "error"
		}
		res.Runs = append(res.Runs, d)
		if opt.OnDone != nil {
			opt.OnDone(d, len(runs))
		}
	}
	res.Elapsed = time.Since(res.Started)
	if err := res.loadRecords(dir); err != nil {
		return res, errors.Join(stopErr, err)
	}
	return res, stopErr
}

// loadRecords reads the study's own records from the results store.
func (r *Result) loadRecords(dir string) error {
	st, err := jobs.Load(dir)
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, d := range r.Runs {
		if d.RecordID != "" {
			ids[d.RecordID] = true
		}
	}
	for _, rec := range st.Records {
		if ids[rec.ID] {
			r.Records = append(r.Records, rec)
		}
	}
	if len(r.Records) < len(ids) {
		return fmt.Errorf("study: %d of the study's %d records are missing from %s", len(ids)-len(r.Records), len(ids), st.Path)
	}
	return nil
}

// Sizes returns the problem sizes that have at least one successful run.
func (r *Result) Sizes() []int {
	var out []int
	for _, rec := range r.Records {
		if rec.OK() && !slices.Contains(out, rec.Job.N) {
			out = append(out, rec.Job.N)
		}
	}
	slices.Sort(out)
	return out
}

// Tables returns Table III (times) and Table IV (gains) of size n from the
// study's records.
func (r *Result) Tables(n int) (times, gains jobs.Table) {
	return jobs.BuildTable(jobs.TimeTable, r.Records, n, r.Matrix.Eps),
		jobs.BuildTable(jobs.GainTable, r.Records, n, r.Matrix.Eps)
}

// Failed returns the runs that did not complete with outcome "ok".
func (r *Result) Failed() []Done {
	var out []Done
	for _, d := range r.Runs {
		if d.Outcome != jobs.OutcomeOK || d.Err != nil {
			out = append(out, d)
		}
	}
	return out
}
