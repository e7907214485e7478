package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/study"
)

// newBenchCmd returns `gridtui bench`, the parent of the benchmarks that
// run from the binary: study (the paper's Tables III/IV) and rmnp.
func newBenchCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "bench",
		Short:   "Benchmarks: the paper's study of schemes (Tables III/IV), RMNP against plain sockets, prediction against measured runs",
		Example: "  gridtui bench study --dry-run\n  gridtui bench rmnp",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newBenchStudyCmd(g), newBenchRmnpCmd(), newBenchPredictCmd(), newBenchBspCmd(g))
	return cmd
}

type benchStudyFlags struct {
	matrix, out, dataDir string
	width                int
	dryRun, json         bool
}

func newBenchStudyCmd(g *globalFlags) *cobra.Command {
	f := &benchStudyFlags{}
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Run a matrix of jobs (sizes × grids × nodes × cores × schemes) and print Tables III and IV",
		Long: "study runs every job of a matrix file (strict TOML, see testdata/study/quick.toml) on the\n" +
			"inventory, the single-node runs that give t1 first, records each run in the results store\n" +
			"and prints, per problem size, the computing times (Table III), the computing gains\n" +
			"C_g = t1/ts (Table IV), a gain chart and whether the paper's ordering of the schemes\n" +
			"(async ≥ hybrid ≥ sync) holds. --out writes the tables (text, CSV, Markdown), runs.csv,\n" +
			"summary.md and gain plots (SVG, PNG). Without --matrix it runs the quick default study.",
		Example: "  gridtui bench study --dry-run\n  gridtui bench study --matrix testdata/study/quick.toml --out study",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runBenchStudy(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.matrix, "matrix", "", "matrix file (TOML; default: the built-in quick study)")
	fl.StringVar(&f.out, "out", "", "write tables, runs.csv, summary.md and plots into this directory")
	fl.StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	fl.IntVar(&f.width, "width", 72, "width of the terminal gain chart")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list the runs and skipped combinations, run nothing")
	fl.BoolVar(&f.json, "json", false, "print the plan or the study's result as JSON (progress goes to stderr)")
	return cmd
}

func runBenchStudy(cmd *cobra.Command, g *globalFlags, f *benchStudyFlags) error {
	m := study.DefaultMatrix()
	if f.matrix != "" {
		var err error
		if m, err = study.LoadMatrix(f.matrix); err != nil {
			return err
		}
	}
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.json {
		out = cmd.ErrOrStderr()
	}
	if inv.Notice != "" {
		fmt.Fprintln(out, inv.Notice)
	}
	if f.dryRun {
		return printPlan(cmd, m, inv, f.json)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(out, "study %s on %s: up to %d runs\n", m.Name, inv.Source, m.RunCount())
	res, runErr := study.Execute(ctx, m, study.Options{
		Inventory: inv, StoreDir: f.dataDir,
		OnStart: func(r study.Run, total int) {
			fmt.Fprintf(out, "[%d/%d] %s … ", r.Index+1, total, r.Spec.Name)
		},
		OnDone: func(d study.Done, total int) {
			fmt.Fprintf(out, "%s in %s\n", d.Outcome, d.Wall.Round(time.Millisecond))
			if d.Err != nil {
				fmt.Fprintf(out, "    %v\n", d.Err)
			}
		},
	})
	if res == nil {
		return runErr
	}
	if f.json {
		if err := jsonout.Write(cmd.OutOrStdout(), res); err != nil {
			return err
		}
	} else if err := res.WriteText(out, f.width); err != nil {
		return err
	}
	if f.out != "" {
		paths, err := res.WriteDir(f.out)
		for _, p := range paths {
			fmt.Fprintf(out, "wrote %s\n", p)
		}
		if err != nil {
			return err
		}
	}
	if runErr != nil {
		return &exitError{code: 1, err: runErr}
	}
	if failed := res.Failed(); len(failed) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("gridtui bench study: %d of %d runs failed (listed above; the tables show them as -)", len(failed), len(res.Runs))}
	}
	return nil
}

func printPlan(cmd *cobra.Command, m study.Matrix, inv *inventory.Inventory, asJSON bool) error {
	runs, skips, err := study.Plan(m, inv)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if asJSON {
		return jsonout.Write(out, struct {
			Runs    []study.Run
			Skipped []study.Skip
		}{runs, skips})
	}
	for _, r := range runs {
		fmt.Fprintf(out, "%3d  %-40s  nodes %v\n", r.Index+1, r.Spec.Name, r.Spec.Nodes.Hosts)
	}
	for _, s := range skips {
		fmt.Fprintf(out, "skip n=%d %s %d nodes × %d cores: %s\n", s.N, s.Grid, s.Nodes, s.Cores, s.Reason)
	}
	fmt.Fprintf(out, "%d runs, %d skipped\n", len(runs), len(skips))
	return nil
}
