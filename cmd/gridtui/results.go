package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/jobs"
)

type resultsFlags struct {
	n       int
	eps     float64
	format  string
	table   string
	dataDir string
	list    bool
}

func newResultsCmd() *cobra.Command {
	f := &resultsFlags{}
	cmd := &cobra.Command{
		Use:   "results",
		Short: "Print recorded runs as the paper's tables (times and computing gains)",
		Long: "results reads the results store (every run of `gridtui run` and the console) and prints,\n" +
			"for each problem (n, ε), Table III (computing times by cores × grid × scheme) and\n" +
			"Table IV (computing gains C_g = t1/ts), as text, CSV or Markdown. --list prints the runs.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return showResults(cmd.OutOrStdout(), cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.n, "n", 0, "only the problem with this n (default: every problem recorded)")
	fl.Float64Var(&f.eps, "eps", 0, "only the problem with this ε")
	fl.StringVar(&f.format, "format", "text", "text, csv or markdown")
	fl.StringVar(&f.table, "table", "both", "time (Table III), gain (Table IV) or both")
	fl.StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	fl.BoolVar(&f.list, "list", false, "list the recorded runs instead of the tables")
	return cmd
}

func showResults(w io.Writer, cmd *cobra.Command, f *resultsFlags) error {
	format, err := jobs.ParseTableFormat(f.format)
	if err != nil {
		return err
	}
	var kinds []jobs.TableKind
	switch f.table {
	case "time":
		kinds = []jobs.TableKind{jobs.TimeTable}
	case "gain":
		kinds = []jobs.TableKind{jobs.GainTable}
	case "both":
		kinds = []jobs.TableKind{jobs.TimeTable, jobs.GainTable}
	default:
		return fmt.Errorf("gridtui results: --table %q: want time, gain or both", f.table)
	}
	dir, err := jobs.DataDir(f.dataDir)
	if err != nil {
		return err
	}
	res, err := jobs.Load(dir)
	if err != nil {
		return err
	}
	if lerr := res.Err(); lerr != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", lerr)
	}
	if f.list {
		return listRuns(w, res.Records)
	}
	type problem struct {
		n   int
		eps float64
	}
	var probs []problem
	for _, r := range res.Records {
		p := problem{r.Job.N, r.Job.Eps}
		if r.OK() && !slices.Contains(probs, p) && (f.n == 0 || p.n == f.n) && (f.eps == 0 || p.eps == f.eps) {
			probs = append(probs, p)
		}
	}
	if len(probs) == 0 {
		fmt.Fprintf(w, "no successful runs recorded in %s\n", dir)
		return nil
	}
	for i, p := range probs {
		for j, k := range kinds {
			if (i > 0 || j > 0) && format != jobs.FormatCSV {
				fmt.Fprintln(w)
			}
			if err := jobs.BuildTable(k, res.Records, p.n, p.eps).Write(w, format); err != nil {
				return err
			}
		}
	}
	return nil
}

func listRuns(w io.Writer, recs []jobs.RunRecord) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tn\tε\tscheme\tnodes\tcores\tgrid\twall (s)\ttrue residual\toutcome")
	for _, r := range recs {
		res := "-"
		if r.TrueResidual != nil {
			res = fmt.Sprintf("%.3g", float64(*r.TrueResidual))
		}
		out := r.Outcome
		if r.Reason != "" {
			out += ": " + r.Reason
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%s\t%d\t%d\t%s\t%.3f\t%s\t%s\n", r.ID, r.Job.N, r.Job.Eps, r.Job.Scheme,
			r.Job.Nodes, r.Job.Cores, r.Job.Grid, r.WallSeconds, res, out)
	}
	return tw.Flush()
}
