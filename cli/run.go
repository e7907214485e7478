package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/internal/termsafe"
	"github.com/gridtui/gridtui/jobs"
)

type runFlags struct {
	job, scheme, detector, nodes, out string
	app                               string
	params                            []string
	n, cores, maxIter, iterations     int
	eps                               float64
	wall                              time.Duration
	json, noRecord                    bool
	sw                                sweepFlags
	spares, checkpointEvery           int
	checkpointDir                     string
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a job headless and print its report",
		Long: "run starts the job's workers, runs it and prints progress lines and a final report\n" +
			"(wall time, iterations per node, true residual, complementarity, traffic per network,\n" +
			"computing gain). With no arguments it runs the default job on the local grid:\n" +
			"the obstacle problem, n = 48, ε = 1e-8, hybrid iterations on 8 nodes.",
		Example: "  gridtui run                                   # the default job on the local grid\n" +
			"  gridtui run --n 64 --scheme async --nodes 4   # flags override the default job\n" +
			"  gridtui run --job job.toml --nodes alpha,beta # a job file on two clusters\n" +
			"  gridtui run --app poisson --param blocks=2x2x1 --nodes 4 # another application\n" +
			"  gridtui run --json | jq -c 'select(.event == \"report\")'\n" +
			"  gridtui run --app poisson --nodes 1 --sweep n=32,48 --sweep eps=1e-6:1e-9:x10 # a sweep: 8 runs",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runJob(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.job, "job", "", "job file (TOML); flags below override it")
	fl.StringVar(&f.app, "app", "", "the application (gridtui apps lists them; default obstacle)")
	fl.StringArrayVar(&f.params, "param", nil, "an application parameter name=value (repeatable)")
	fl.IntVar(&f.n, "n", 0, "interior points per axis (the parameter n)")
	fl.Float64Var(&f.eps, "eps", 0, "convergence threshold ε (the parameter eps)")
	fl.StringVar(&f.scheme, "scheme", "", "sync, async or hybrid")
	fl.StringVar(&f.detector, "detector", "", "tokens, activity or switch (default: the scheme's)")
	fl.StringVar(&f.nodes, "nodes", "", `nodes: a count ("8") or a comma list of sites, clusters and hosts; node sets such as "alpha-[1-4]"`)
	fl.IntVar(&f.cores, "cores", -1, "cores per node (0: each host's cores; default: the job's, 1 for the default job)")
	// -1 only says "not given" (the job's cores stand): help shows no
	// "(default -1)" that reads as a value to pass.
	fl.Lookup("cores").DefValue = "0"
	fl.IntVar(&f.maxIter, "max-iter", 0, "iteration limit per node (an asynchronous node counts its sweeps on new halos)")
	fl.IntVar(&f.iterations, "iterations", 0, "exactly this many sweeps of every part, whatever σ (a sync run then equals the serial loop bit for bit; 0: until converged)")
	fl.DurationVar(&f.wall, "wall-time", 0, "wall-time limit")
	fl.StringVar(&f.out, "out", "", "write the solution (VTI and raw) into this directory")
	fl.IntVar(&f.spares, "spares", 0, "workers started beside the job's nodes, to take a lost node's part")
	fl.IntVar(&f.checkpointEvery, "checkpoint-every", 0, "checkpoint every part every this many iterations (default: chosen to keep their cost within 1 %, the first about 5 s into the run; -1: none, a lost node fails the run)")
	fl.StringVar(&f.checkpointDir, "checkpoint-dir", "", "directory for checkpoints, shared by every node (default: the data directory)")
	fl.BoolVar(&f.json, "json", false, "print JSON event lines instead of text (snake_case keys, durations in seconds)")
	fl.BoolVar(&f.noRecord, "no-record", false, "do not append the run to the results store")
	addSweepFlags(cmd, &f.sw)
	return cmd
}

func runJob(cmd *cobra.Command, g *globalFlags, f *runFlags) error {
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	if inv.Notice != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", inv.Notice)
	}
	if f.sw.resume != "" && !strings.HasPrefix(f.sw.resume, "sweep-") {
		return resumeRun(cmd, f, inv)
	}
	if f.sw.resume != "" {
		if err := checkSweepFlags(cmd.Flags().Changed, &f.sw, true); err != nil {
			return err
		}
		return runSweep(cmd, inv, jobs.Spec{}, f)
	}
	spec, err := buildSpec(cmd, f, inv)
	if err != nil {
		return err
	}
	if spec.Sweep != nil {
		return runSweep(cmd, inv, spec, f)
	}
	return runOne(cmd, f, inv, spec, "")
}

// runOne runs spec (or continues run resume, "" none) and prints its
// progress and report.
func runOne(cmd *cobra.Command, f *runFlags, inv *inventory.Inventory, spec jobs.Spec, resume string) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := cmd.OutOrStdout()
	p := &progress{w: out, json: f.json}
	rep, runErr := engine.Run(ctx, spec, engine.RunOptions{
		Inventory: inv, OnSnapshot: p.snapshot, OnLog: p.log, NoRecord: f.noRecord,
		Deploy: terminalPrompts(deploy.Options{HelloTimeout: 30 * time.Second}), Resume: resume,
	})
	if errors.Is(runErr, engine.ErrResume) {
		return usageError(fmt.Errorf("gridtui run: %w", runErr))
	}
	if rep != nil {
		if f.json {
			p.emit("report", rep)
		} else {
			fmt.Fprintln(out)
			if err := rep.WriteText(out); err != nil {
				return err
			}
		}
	}
	if rep != nil && rep.Outcome != "ok" && rep.RecordID != "" && !f.json {
		fmt.Fprintf(cmd.ErrOrStderr(), "the workers' logs: gridtui logs %s [NODE]\n", rep.RecordID)
	}
	if runErr != nil && f.json {
		// A --json reader learns of the failure on its stream too: an
		// error event, with the report (if any) before it.
		p.emit("error", runError{Message: termsafe.Text(runErr.Error()), Started: rep != nil})
	}
	if runErr != nil {
		return &exitError{code: 1, err: runErr}
	}
	if rep.Outcome != "ok" || (rep.Checked && !rep.FiguresOK) {
		return &exitError{code: 1, err: fmt.Errorf("gridtui run: outcome %s", rep.Outcome)}
	}
	return nil
}

// buildSpec starts from the job file (or the default job) and applies the
// flags that were given. engine.Run validates the result and resolves its
// node selection.
func buildSpec(cmd *cobra.Command, f *runFlags, inv *inventory.Inventory) (jobs.Spec, error) {
	return buildSpecFrom(cmd, f, inv, jobs.DefaultSpec())
}

// buildSpecFrom is buildSpec from spec rather than the default job (a
// resumed run's job).
func buildSpecFrom(cmd *cobra.Command, f *runFlags, inv *inventory.Inventory, spec jobs.Spec) (jobs.Spec, error) {
	if f.job != "" {
		var err error
		if spec, err = jobs.LoadSpec(f.job); err != nil {
			return spec, err
		}
	}
	set := cmd.Flags().Changed
	if err := checkRunFlags(set, f); err != nil {
		return spec, err
	}
	if set("app") {
		if f.job == "" {
			spec.Name = ""
		}
		spec.App, spec.Params = f.app, nil
		if a, err := gridapp.Lookup(f.app); err == nil && !set("scheme") && f.job == "" {
			if _, ok := a.(bsp.Supersteps); ok {
				spec.Scheme = jobs.Synchronous // a BSP program's supersteps
			}
		}
	}
	if set("n") {
		f.params = append([]string{"n=" + strconv.Itoa(f.n)}, f.params...)
	}
	if set("eps") {
		f.params = append([]string{"eps=" + strconv.FormatFloat(f.eps, 'g', -1, 64)}, f.params...)
	}
	if err := applyParams(&spec, f.params); err != nil {
		return spec, usageError(err)
	}
	if set("app") || len(f.params) > 0 {
		// The application and its parameters come from the command line:
		// a name or value it refuses is a usage error.
		if _, _, err := spec.Application(); err != nil {
			return spec, usageError(fmt.Errorf("gridtui run: %w", err))
		}
	}
	if set("scheme") {
		spec.Scheme = jobs.Scheme(f.scheme)
		if !set("detector") {
			spec.Detector = ""
		}
	}
	if set("detector") {
		spec.Detector = jobs.Detector(f.detector)
	}
	if (set("scheme") || set("detector")) && spec.Detector != "" && !jobs.Supported(spec.Scheme, spec.Detector) {
		return spec, usageErrorf("gridtui run: --detector %s does not run with --scheme %s: tokens is for sync jobs only; async and hybrid jobs use activity or switch",
			spec.Detector, spec.Scheme)
	}
	if set("cores") {
		spec.Cores = f.cores
	}
	if set("max-iter") {
		spec.MaxIter = f.maxIter
	}
	if set("iterations") {
		spec.Iterations = f.iterations
	}
	if set("wall-time") {
		spec.WallTime = f.wall
	}
	if set("spares") {
		spec.Resilience.Spares = f.spares
	}
	if set("checkpoint-every") {
		spec.Resilience.CheckpointEvery = f.checkpointEvery
	}
	if set("checkpoint-dir") {
		spec.Resilience.CheckpointDir = f.checkpointDir
	}
	if set("out") {
		spec.Output = jobs.Output{Dir: f.out, VTI: true, Raw: true}
	}
	if err := buildSweep(&spec, set, &f.sw); err != nil {
		return spec, err
	}
	if set("nodes") {
		sel, err := parseNodes(f.nodes, inv)
		if err != nil {
			return spec, err
		}
		spec.Nodes, spec.Groups = sel, nil
	} else if f.job != "" {
		// The job file's own selection: a name the inventory lacks is a
		// mistake at its line in the file.
		if err := spec.CheckSelectionIn(f.job, grid.Refs(inv), inv.Source); err != nil {
			return spec, err
		}
	}
	return spec, nil
}

// applyParams sets the job's application parameters from --param
// name=value (checked against the application's declarations by
// jobs.Spec.Application).
func applyParams(spec *jobs.Spec, kvs []string) error {
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return fmt.Errorf("gridtui run: --param %q: want name=value", kv)
		}
		if spec.Params == nil {
			spec.Params = map[string]string{}
		}
		spec.Params[k] = v
	}
	return nil
}

// checkRunFlags refuses values given explicitly that would otherwise be
// replaced by a default (0) or fail only after the workers started.
func checkRunFlags(set func(string) bool, f *runFlags) error {
	switch {
	case set("n") && f.n < 1:
		return usageErrorf("gridtui run: --n %d: want at least 1", f.n)
	case set("eps") && !(f.eps > 0):
		return usageErrorf("gridtui run: --eps %g: want a positive number", f.eps)
	case set("spares") && (f.spares < 0 || f.spares > 1024):
		return usageErrorf("gridtui run: --spares %d: want 0 to 1024", f.spares)
	case set("checkpoint-every") && (f.checkpointEvery == 0 || f.checkpointEvery < -1):
		return usageErrorf("gridtui run: --checkpoint-every %d: want at least 1, or -1 for none", f.checkpointEvery)
	case set("max-iter") && f.maxIter < 1:
		return usageErrorf("gridtui run: --max-iter %d: want at least 1", f.maxIter)
	case set("iterations") && f.iterations < 0:
		return usageErrorf("gridtui run: --iterations %d: want at least 1 (0: until converged)", f.iterations)
	case set("wall-time") && f.wall <= 0:
		return usageErrorf("gridtui run: --wall-time %s: want a positive duration", f.wall)
	case set("scheme") && !slices.Contains([]jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}, jobs.Scheme(f.scheme)):
		return usageErrorf("gridtui run: --scheme %q%s: want sync, async or hybrid", f.scheme, gridapp.DidYouMean(f.scheme, []string{"sync", "async", "hybrid"}))
	case set("detector") && !slices.Contains([]jobs.Detector{jobs.DetectTokens, jobs.DetectActivity, jobs.DetectSwitch}, jobs.Detector(f.detector)):
		return usageErrorf("gridtui run: --detector %q%s: want tokens, activity or switch", f.detector, gridapp.DidYouMean(f.detector, []string{"tokens", "activity", "switch"}))
	case set("cores") && f.cores < 0:
		return usageErrorf("gridtui run: --cores %d: want 0 (each host's cores) or more", f.cores)
	}
	return nil
}

// parseNodes reads --nodes (jobs.ParseNodes): a count, or names of sites,
// clusters and hosts of inv, hosts possibly as a node set.
func parseNodes(s string, inv *inventory.Inventory) (jobs.NodeSelection, error) {
	if strings.Trim(s, " ,") == "" {
		return jobs.NodeSelection{}, usageErrorf("gridtui run: --nodes %q names no node: give a count (\"8\") or sites, clusters and hosts", s)
	}
	sel, err := jobs.ParseNodes(s, grid.Refs(inv), inv.Source, sched.ExpandNodeSet)
	if err != nil {
		return sel, usageErrorf("gridtui run: --%s", strings.TrimPrefix(err.Error(), "jobs: "))
	}
	return sel, nil
}

// runError is the data of the error event of `gridtui run --json`: why the
// run failed, and whether it had started (a report came before it).
type runError struct {
	Message string `json:"message"`
	Started bool   `json:"started"`
}

// progress prints telemetry: a text line about once a second, or every
// snapshot and log event as a JSON line.
type progress struct {
	w    io.Writer
	json bool
	last time.Time
}

func (p *progress) emit(kind string, v any) {
	b, err := jsonout.Marshal(struct {
		Event string `json:"event"`
		Data  any    `json:"data"`
	}{kind, v})
	if err == nil {
		fmt.Fprintln(p.w, string(b))
	}
}

func (p *progress) log(ev engine.LogEvent) {
	if p.json {
		p.emit("log", ev)
		return
	}
	who := ev.Node
	if who == "" {
		who = "run"
	}
	fmt.Fprintf(p.w, "%s  %s %s\n", ev.At.Format("15:04:05.000"), columns.PadRight(termsafe.Line(who), 8), termsafe.Text(ev.Text))
}

func (p *progress) snapshot(s engine.Snapshot) {
	if p.json {
		p.emit("snapshot", s)
		return
	}
	if time.Since(p.last) < time.Second {
		return
	}
	p.last = time.Now()
	counts := map[engine.NodeState]int{}
	lo, hi := -1, 0
	for _, n := range s.Nodes {
		counts[n.State]++
		if lo < 0 || n.Iteration < lo {
			lo = n.Iteration
		}
		hi = max(hi, n.Iteration)
	}
	var states []string
	for st := engine.StateStarting; st <= engine.StateFailed; st++ {
		if counts[st] > 0 {
			states = append(states, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	gain := ""
	if s.Gain > 0 {
		gain = fmt.Sprintf("  gain≈%.2f", s.Gain)
	}
	fmt.Fprintf(p.w, "%7.1fs  σ=%.3e  iterations %d…%d  %s%s\n", s.Elapsed.Seconds(), s.GlobalSigma, lo, hi, strings.Join(states, ", "), gain)
}

var _ = context.Background

// terminalPrompts lets a headless run ask on the terminal, when stdin is
// one, what connecting to its hosts needs: passphrases, keyboard-interactive
// answers (one-time codes) and unknown host keys.
func terminalPrompts(opt deploy.Options) deploy.Options {
	if !term.IsTerminal(os.Stdin.Fd()) {
		return opt
	}
	p := deploy.NewProgress(os.Stderr, nil, false) // serializes the prompts
	opt.Passphrase = func(host, keyfile string) ([]byte, error) { return askPassphrase(p, host, keyfile) }
	opt.Challenge = func(host, instruction string, questions []string, echo []bool) ([]string, error) {
		return askChallenge(p, host, instruction, questions, echo)
	}
	opt.ConfirmHostKey = func(host, fp string) bool { return confirmHostKey(p, host, fp) }
	return opt
}
