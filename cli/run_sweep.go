package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/sweep"
)

// sweepFlags are gridtui run's flags of a parameter sweep.
type sweepFlags struct {
	sweeps, files []string
	maxParallel   int
	retries       int
	maxInstances  int
	resume        string
	format        string
	dryRun        bool
}

func addSweepFlags(cmd *cobra.Command, f *sweepFlags) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.sweeps, "sweep", nil, `sweep a parameter: name=32,48,64, a range name=8:64:x2 or name=@FILE (repeatable; instances are the product)`)
	fl.StringArrayVar(&f.files, "sweep-file", nil, "sweep a parameter over the lines of a file: name=FILE (repeatable)")
	fl.IntVar(&f.maxParallel, "max-parallel", 0, "run at most this many instances of a sweep at once (0: as many as the nodes hold)")
	fl.IntVar(&f.retries, "retries", 0, "run a failed instance of a sweep again, up to this many times")
	fl.IntVar(&f.maxInstances, "max-instances", jobs.DefaultMaxInstances, "refuse a sweep of more instances")
	fl.StringVar(&f.resume, "resume", "", "resume a run by its id from its checkpoints (docs/FAILURES.md), or a sweep (sweep-…): its missing and failed instances")
	fl.StringVar(&f.format, "format", "table", "a sweep's results table: table, csv or json")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print a sweep's instances (the table of what would run) and run nothing")
	registerSweepCompletions(cmd)
}

// limit is --max-instances, or the default when unset.
func (f *sweepFlags) limit() int {
	if f.maxInstances < 1 {
		return jobs.DefaultMaxInstances
	}
	return f.maxInstances
}

// sweepAxes reads --sweep and --sweep-file into the job's sweep: an axis of
// the job file named again on the command line is replaced.
func sweepAxes(spec *jobs.Spec, f *sweepFlags) error {
	var axes []jobs.SweepAxis
	for _, kv := range f.sweeps {
		name, text, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return usageErrorf("gridtui run: --sweep %q: want name=values", kv)
		}
		vals, err := sweepValues(text)
		if err != nil {
			return usageErrorf("gridtui run: --sweep %s: %w", name, err)
		}
		axes = append(axes, jobs.SweepAxis{Name: name, Values: vals})
	}
	for _, kv := range f.files {
		name, file, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || file == "" {
			return usageErrorf("gridtui run: --sweep-file %q: want name=FILE", kv)
		}
		vals, err := jobs.ReadSweepLines(file)
		if err != nil {
			return usageErrorf("gridtui run: --sweep-file %s: %w", name, err)
		}
		axes = append(axes, jobs.SweepAxis{Name: name, Values: vals})
	}
	if len(axes) == 0 {
		return nil
	}
	if spec.Sweep == nil {
		spec.Sweep = &jobs.Sweep{}
	}
	if wd, err := os.Getwd(); err == nil {
		// A file value is relative to here, not to where --resume runs.
		for i, a := range axes {
			one := jobs.Spec{App: spec.App, Sweep: &jobs.Sweep{Axes: []jobs.SweepAxis{a}}}
			axes[i] = one.AbsPaths(wd).Sweep.Axes[0]
		}
	}
	for _, a := range axes {
		replaced := false
		for i, b := range spec.Sweep.Axes {
			if b.Name == a.Name {
				spec.Sweep.Axes[i], replaced = a, true
			}
		}
		if !replaced {
			spec.Sweep.Axes = append(spec.Sweep.Axes, a)
		}
	}
	return nil
}

func sweepValues(text string) ([]string, error) {
	if file, ok := strings.CutPrefix(text, "@"); ok {
		return jobs.ReadSweepLines(file)
	}
	return jobs.ParseSweepValues(text)
}

// buildSweep applies the sweep flags to the job and checks its sweep
// against its application: a mistake there is a usage error.
func buildSweep(spec *jobs.Spec, set func(string) bool, f *sweepFlags) error {
	if err := sweepAxes(spec, f); err != nil {
		return err
	}
	if err := checkSweepFlags(set, f, spec.Sweep != nil); err != nil {
		return err
	}
	if spec.Sweep == nil {
		return nil
	}
	if err := spec.WithDefaults().CheckSweep(); err != nil {
		return usageError(fmt.Errorf("gridtui run: %w", err))
	}
	if limit := f.limit(); spec.Sweep.Count(limit) > limit {
		_, err := spec.Sweep.Points(limit)
		return usageError(fmt.Errorf("gridtui run: %w", err))
	}
	return nil
}

// checkSweepFlags refuses sweep flags that make no sense together.
func checkSweepFlags(set func(string) bool, f *sweepFlags, sweeping bool) error {
	switch {
	case f.resume != "" && (len(f.sweeps) > 0 || len(f.files) > 0 || set("job") || set("app") || set("param")):
		return usageErrorf("gridtui run: --resume %s takes the sweep's job from its job log: give no --job, --app, --param or --sweep", f.resume)
	case f.maxParallel < 0:
		return usageErrorf("gridtui run: --max-parallel %d: want 0 (no limit) or more", f.maxParallel)
	case f.retries < 0:
		return usageErrorf("gridtui run: --retries %d: want 0 or more", f.retries)
	case set("max-instances") && f.maxInstances < 1:
		return usageErrorf("gridtui run: --max-instances %d: want at least 1", f.maxInstances)
	case set("format") && f.format != sweep.FormatTable && f.format != sweep.FormatCSV && f.format != sweep.FormatJSON:
		return usageErrorf("gridtui run: --format %q: want table, csv or json", f.format)
	case f.resume != "" && f.dryRun:
		return usageErrorf("gridtui run: --dry-run lists a new sweep's instances; gridtui results sweep %s shows this one's", f.resume)
	case !sweeping && f.resume == "" && (set("max-parallel") || set("retries") || set("format") || set("max-instances") || f.dryRun):
		return usageErrorf("gridtui run: --max-parallel, --retries, --max-instances, --format and --dry-run are for sweeps (--sweep, [sweep] in the job file, --resume)")
	}
	return nil
}

// runSweep runs the instances of a sweep (or resumes one), printing a
// progress line a second and one line per attempt, then the results table.
func runSweep(cmd *cobra.Command, inv *inventory.Inventory, spec jobs.Spec, f *runFlags) error {
	if f.sw.dryRun {
		return dryRunSweep(cmd.OutOrStdout(), spec, f)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := jobs.DataDir("")
	if err != nil {
		return err
	}
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	p := &progress{w: errw, json: f.json}
	if f.json {
		p.w = out
	}
	sp := &sweepProgress{p: p}
	opt := sweep.Options{Hosts: grid.Refs(inv), Source: inv.Source, MaxParallel: f.sw.maxParallel,
		Retries: f.sw.retries, MaxInstances: f.sw.limit(), Dir: dir,
		OnProgress: sp.progress, OnAttempt: sp.attempt, OnResume: sp.resume}
	run := engineRunner(inv, f.noRecord)
	if n := len(opt.Hosts); f.sw.resume == "" && spec.Sweep != nil && !swept(spec, "nodes") &&
		(spec.Nodes.Any >= n || (spec.Nodes.Any == 0 && len(spec.Nodes.Hosts)+len(spec.Nodes.Clusters)+len(spec.Nodes.Sites) == 0)) {
		fmt.Fprintf(errw, "note: each instance takes all %d nodes of %s, so instances run one at a time; --nodes 1 runs them side by side\n", n, inv.Source)
	}
	var sum *sweep.Summary
	if f.sw.resume != "" {
		sum, err = sweep.Resume(ctx, f.sw.resume, run, opt)
	} else {
		sum, err = sweep.Start(ctx, spec, run, opt)
	}
	if sum == nil {
		if errors.Is(err, jobs.ErrSweep) || errors.Is(err, sweep.ErrNoSweep) {
			return usageError(err)
		}
		return err
	}
	if werr := writeSweepSummary(out, errw, sum, dir, f); werr != nil {
		return werr
	}
	switch {
	case err != nil:
		return &exitError{code: 1, err: err}
	case sum.Failed > 0:
		return &exitError{code: 1, err: fmt.Errorf("gridtui run: sweep %s: %d of %d instances failed (rerun them: gridtui run --resume %s)", sum.ID, sum.Failed, sum.Total, sum.ID)}
	}
	return nil
}

// swept reports whether the job's sweep varies name.
func swept(spec jobs.Spec, name string) bool {
	for _, a := range spec.Sweep.Axes {
		if a.Name == name {
			return true
		}
	}
	return false
}

// engineRunner runs one instance with engine.Run: workers started for it on
// the hosts the sweep chose, and stopped when it ends.
func engineRunner(inv *inventory.Inventory, noRecord bool) sweep.RunFunc {
	dopt := terminalPrompts(deploy.Options{HelloTimeout: 30 * time.Second})
	return func(ctx context.Context, spec jobs.Spec) sweep.Result {
		rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inv, NoRecord: noRecord, Deploy: dopt})
		res := sweep.Result{Err: err, Outcome: sweep.OutcomeFailed}
		if rep == nil {
			if ctx.Err() != nil {
				res.Outcome = "aborted"
			}
			return res
		}
		res.Outcome, res.RecordID = rep.Outcome, rep.RecordID
		wall := rep.Wall
		res.RunTime = &wall
		if len(rep.Nodes) > 0 {
			it := 0
			for _, n := range rep.Nodes {
				it = max(it, n.Iterations)
			}
			res.Iterations = &it
		}
		if rep.Checked {
			r := rep.Residual
			res.Residual = &r
		}
		if err == nil && rep.Outcome == "ok" && rep.Checked && !rep.FiguresOK {
			res.Outcome, res.Err = sweep.OutcomeFailed, errors.New("gridtui run: the application's check of the solution failed")
		}
		return res
	}
}

// writeSweepSummary prints why instances ran again, the results table and
// a last line: the sweep's id, its counts and where its job log is.
func writeSweepSummary(out, errw io.Writer, sum *sweep.Summary, dir string, f *runFlags) error {
	l, err := sweep.ReadLog(dir, sum.ID)
	if err != nil {
		return err
	}
	tab, err := sweep.TableOf(l)
	if err != nil {
		return err
	}
	if f.json {
		p := &progress{w: out, json: true}
		p.emit("sweep", struct {
			Sweep   string        `json:"sweep"`
			Log     string        `json:"job_log"`
			Total   int           `json:"total"`
			OK      int           `json:"ok"`
			Failed  int           `json:"failed"`
			NotRun  int           `json:"not_run"`
			Skipped int           `json:"skipped"`
			Wall    time.Duration `json:"wall_seconds"`
			Reruns  []sweep.Rerun `json:"reruns"`
			Table   sweep.Table   `json:"table"`
		}{sum.ID, sum.Log, sum.Total, sum.OK, sum.Failed, sum.NotRun, sum.Skipped, sum.Wall, sum.Reruns, tab})
		return nil
	}
	if err := tab.Write(out, f.sw.format); err != nil {
		return err
	}
	fmt.Fprintf(errw, "sweep %s: %d instances, %d ok, %d failed, %d not run (%d ran in %s, %d done before); job log %s\n",
		sum.ID, sum.Total, sum.OK, sum.Failed, sum.NotRun, sum.Ran, sum.Wall.Round(time.Millisecond), sum.Skipped, sum.Log)
	if sum.NotRun > 0 || sum.Failed > 0 {
		fmt.Fprintf(errw, "resume: gridtui run --resume %s\n", sum.ID)
	}
	return nil
}

// sweepProgress prints a sweep's progress headless: a line per attempt as
// it ends and a progress line at most once a second (every event as a
// JSON line with --json).
type sweepProgress struct {
	p    *progress
	last time.Time
}

func (s *sweepProgress) progress(pr sweep.Progress) {
	if s.p.json {
		if time.Since(s.last) >= time.Second {
			s.last = time.Now()
			s.p.emit("sweep_progress", pr)
		}
		return
	}
	if time.Since(s.last) < time.Second {
		return
	}
	s.last = time.Now()
	fmt.Fprintln(s.p.w, pr.Line())
}

func (s *sweepProgress) resume(reruns []sweep.Rerun, skipped int) {
	if s.p.json {
		s.p.emit("sweep_resume", struct {
			Skipped int           `json:"skipped"`
			Reruns  []sweep.Rerun `json:"reruns"`
		}{skipped, reruns})
		return
	}
	fmt.Fprintf(s.p.w, "resuming: %d instances succeeded before; %d run again\n", skipped, len(reruns))
	for _, r := range reruns {
		fmt.Fprintf(s.p.w, "rerun %d (%s): %s\n", r.Instance, r.Params, r.Why)
	}
}

func (s *sweepProgress) attempt(a sweep.Attempt) {
	if s.p.json {
		s.p.emit("sweep_attempt", a)
		return
	}
	detail := ""
	if a.Error != nil {
		detail = ": " + *a.Error
	}
	fmt.Fprintf(s.p.w, "instance %d (%s) attempt %d on %s: %s in %.2fs%s\n", a.Instance, paramsText(a.Params),
		a.Attempt, strings.Join(a.Hosts, ","), a.Outcome, a.WallSeconds, detail)
}

// paramsText is an attempt's parameters as name=value, sorted by name.
func paramsText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// registerSweepCompletions completes gridtui run's --resume with the
// runs that can be resumed and the sweeps of the data directory and --format with its three formats.
func registerSweepCompletions(run *cobra.Command) {
	run.RegisterFlagCompletionFunc("resume", func(_ *cobra.Command, _ []string, in string) ([]string, cobra.ShellCompDirective) {
		return append(resumableIDs(in), sweepIDs(in)...), cobra.ShellCompDirectiveNoFileComp
	})
	run.RegisterFlagCompletionFunc("format", fixed("table\tcolumns for a terminal", "csv\ta header line and a row per instance", "json\tnull for unknown figures"))
}

// sweepIDs are the sweeps of the default data directory starting with in.
func sweepIDs(in string) []string {
	dir, err := jobs.DataDir("")
	if err != nil {
		return nil
	}
	ids, _ := sweep.ListSweeps(dir)
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, in) {
			out = append(out, id)
		}
	}
	return out
}

// dryRunSweep prints the instances a sweep would run, as its results table
// with every instance "not run".
func dryRunSweep(w io.Writer, spec jobs.Spec, f *runFlags) error {
	points, err := spec.Sweep.Points(f.sw.limit())
	if err != nil {
		return usageError(err)
	}
	h := sweep.Header{Sweep: "dry-run"}
	for _, a := range spec.Sweep.Axes {
		h.Axes = append(h.Axes, sweep.Axis{Name: a.Name, Values: a.Values})
	}
	return sweep.NewTable(h, points, nil).Write(w, f.sw.format)
}
