package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/sweep"
)

// sweepFlags are `gridtui run`'s flags of a parameter sweep.
type sweepFlags struct {
	axes       []string
	lines      string
	throttle   int
	retries    int
	log, table string
	resume     bool
}

func addSweepFlags(cmd *cobra.Command, f *sweepFlags) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.axes, "sweep", nil, "sweep a parameter: name=v1,v2,… or name=lo:hi:step (repeatable: every combination runs, one job each)")
	fl.StringVar(&f.lines, "sweep-lines", "", "run the job once per line of this file, each line name=value … (GNU parallel's input lines)")
	fl.IntVar(&f.throttle, "throttle", 1, "a sweep's instances running at once")
	fl.IntVar(&f.retries, "retries", 0, "further attempts of a failed instance of a sweep")
	fl.StringVar(&f.log, "sweep-log", "", "a sweep's job log (JSON lines; default sweep-<app>.log)")
	fl.BoolVar(&f.resume, "resume", false, "run only the instances the sweep's job log lacks or has as failed")
	fl.StringVar(&f.table, "table", "", "write a sweep's results table to this file (.csv or .json; default: CSV on stdout)")
}

// runSweep runs spec once per combination of the swept values.
func runSweep(cmd *cobra.Command, spec jobs.Spec, inv *deploy.Inventory, f *sweepFlags, noRecord bool) error {
	instances, err := sweepInstances(spec.App, f)
	if err != nil {
		return err
	}
	logPath := f.log
	if logPath == "" {
		logPath = "sweep-" + spec.App + ".log"
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errw := cmd.ErrOrStderr()
	runner := func(ctx context.Context, p map[string]string) (sweep.Result, error) {
		s := spec
		s.Params = make(map[string]string, len(spec.Params))
		for k, v := range spec.Params {
			s.Params[k] = v
		}
		var kvs []string
		for k, v := range p {
			kvs = append(kvs, k+"="+v)
		}
		if err := applyParams(&s, kvs); err != nil {
			return sweep.Result{}, err
		}
		rep, err := engine.Run(ctx, s, engine.RunOptions{Inventory: inv, NoRecord: noRecord,
			Deploy: deploy.Options{HelloTimeout: 30 * time.Second}})
		if err != nil {
			return sweep.Result{}, err
		}
		if rep.Outcome != "ok" {
			return sweep.Result{}, fmt.Errorf("outcome %s", rep.Outcome)
		}
		it := 0
		for _, n := range rep.Nodes {
			it = max(it, n.Iterations)
		}
		return sweep.Result{Iterations: it, Residual: rep.Residual}, nil
	}
	fmt.Fprintf(errw, "sweep: %d instances of %s, %d at once, log %s\n", len(instances), spec.App, f.throttle, logPath)
	out, runErr := sweep.Run(ctx, instances, runner, sweep.Options{Throttle: f.throttle, Retries: f.retries, Log: logPath, Resume: f.resume,
		Progress: func(p sweep.Progress) {
			fmt.Fprintf(errw, "sweep: %d/%d done, %d failed, %d running, %s elapsed, ETA %s\n",
				p.Done, p.Total, p.Failed, p.Running, p.Elapsed.Round(time.Second), p.ETA.Round(time.Second))
		}})
	if out != nil {
		if err := writeTable(cmd.OutOrStdout(), f.table, out); err != nil {
			return err
		}
	}
	if runErr != nil {
		return &exitError{code: 1, err: fmt.Errorf("gridtui run: sweep interrupted (--resume runs the rest): %w", runErr)}
	}
	for _, o := range out {
		if o.Status != sweep.StatusOK {
			return &exitError{code: 1, err: fmt.Errorf("gridtui run: instance %d of the sweep failed: %s", o.Index, o.Error)}
		}
	}
	return nil
}

// sweepInstances expands the --sweep axes, or reads --sweep-lines.
func sweepInstances(app string, f *sweepFlags) ([]map[string]string, error) {
	known, err := knownParams(app)
	if err != nil {
		return nil, err
	}
	if f.lines != "" {
		if len(f.axes) > 0 {
			return nil, fmt.Errorf("gridtui run: --sweep and --sweep-lines: give one of them")
		}
		r, err := os.Open(f.lines)
		if err != nil {
			return nil, fmt.Errorf("gridtui run: --sweep-lines: %w", err)
		}
		defer r.Close()
		return sweep.ReadLines(r, f.lines, known)
	}
	var axes []sweep.Axis
	for _, s := range f.axes {
		a, err := sweep.ParseAxis(s)
		if err != nil {
			return nil, err
		}
		axes = append(axes, a)
	}
	return sweep.Expand(nil, axes, known)
}

// knownParams says which parameters a job of app may sweep.
func knownParams(app string) (func(string) bool, error) {
	if app == "obstacle" {
		return func(s string) bool { return s == "n" || s == "eps" }, nil
	}
	a, err := gridapp.Lookup(app)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, p := range a.Params() {
		names[p.Name] = true
	}
	return func(s string) bool { return names[s] }, nil
}

func writeTable(stdout io.Writer, path string, out []sweep.Outcome) error {
	if path == "" {
		return sweep.WriteCSV(stdout, out)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gridtui run: results table: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		err = sweep.WriteJSON(f, out)
	} else {
		err = sweep.WriteCSV(f, out)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
