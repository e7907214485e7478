package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
)

type resultsFlags struct {
	n       int
	eps     float64
	format  string
	table   string
	dataDir string
	list    bool
	json    bool
}

func newResultsCmd() *cobra.Command {
	f := &resultsFlags{}
	cmd := &cobra.Command{
		Use:   "results",
		Short: "Print recorded runs as the paper's tables (times and computing gains)",
		Long: "results reads the results store (every run of `gridtui run` and the console) and prints,\n" +
			"for each problem (n, ε), Table III (computing times by cores × grid × scheme) and\n" +
			"Table IV (computing gains C_g = t1/ts), as text, CSV or Markdown. --list prints the runs.\n" +
			"CSV is one file in long form: a line per cell (table, n, eps, cores, grid, scheme, value, inventory).\n" +
			"Runs on different inventories (the embedded local grid, a sites file) are never pooled:\n" +
			"the same cluster names in two inventories are two columns, each inventory has its own t1.\n" +
			"`results show RUN` prints one run, `results export RUN` writes its residual history and\n" +
			"gain chart.",
		Example: "  gridtui results                       # Tables III and IV of every problem\n" +
			"  gridtui results --n 48 --table gain   # Table IV of n = 48\n" +
			"  gridtui results --list --format csv   # every recorded run as CSV",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return showResults(cmd.OutOrStdout(), cmd, f) },
	}
	cmd.AddCommand(newResultsShowCmd(f), newResultsExportCmd(f), newResultsSweepCmd(f))
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	pf.BoolVar(&f.json, "json", false, "print JSON (snake_case keys) instead of text")
	fl := cmd.Flags()
	fl.IntVar(&f.n, "n", 0, "only the problem with this n (default: every problem recorded)")
	fl.Float64Var(&f.eps, "eps", 0, "only the problem with this ε")
	fl.StringVar(&f.format, "format", "text", "text, csv or markdown")
	fl.StringVar(&f.table, "table", "both", "time (Table III), gain (Table IV) or both")
	fl.BoolVar(&f.list, "list", false, "list the recorded runs instead of the tables")
	return cmd
}

func showResults(w io.Writer, cmd *cobra.Command, f *resultsFlags) error {
	format, err := jobs.ParseTableFormat(f.format)
	if err != nil {
		return usageError(err)
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
		return usageErrorf("gridtui results: --table %q: want time, gain or both", f.table)
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
		if f.json {
			return jsonout.Write(w, res.Records)
		}
		if err := listRuns(w, res.Records, format, dir); err != nil || format != jobs.FormatText {
			return err
		}
		return writeResumable(w, dir)
	}
	probs, err := resultProblems(res.Records, f, dir)
	if f.json && err == nil {
		return jsonout.Write(w, tablesJSON(res.Records, probs, kinds))
	}
	if err != nil || probs == nil {
		if err == nil {
			fmt.Fprintf(w, "no successful runs recorded in %s\n", dir)
			if format == jobs.FormatText {
				err = writeResumable(w, dir)
			}
		}
		return err
	}
	if format == jobs.FormatCSV {
		return writeTablesCSV(w, res.Records, probs, kinds)
	}
	for i, p := range probs {
		for j, k := range kinds {
			if i > 0 || j > 0 {
				fmt.Fprintln(w)
			}
			if err := jobs.BuildTableOf(k, res.Records, p.in).Write(w, format); err != nil {
				return err
			}
		}
	}
	if format == jobs.FormatText {
		return writeResumable(w, dir)
	}
	return nil
}

// tableView is a table of `gridtui results --json`: Table III ("time",
// seconds) or Table IV ("gain") of one problem — its application and the
// parameters that identify it (jobs.Instance) —; a cell never run is null.
type tableView struct {
	Table   string            `json:"table"`
	App     string            `json:"app"`
	Params  map[string]string `json:"params,omitempty"`
	N       int               `json:"n"`
	Eps     float64
	Columns []jobs.TableColumn
	Rows    []jobs.TableRow
}

func tablesJSON(recs []jobs.RunRecord, probs []problem, kinds []jobs.TableKind) []tableView {
	out := []tableView{}
	for _, p := range probs {
		for _, k := range kinds {
			t := jobs.BuildTableOf(k, recs, p.in)
			name := "time"
			if k == jobs.GainTable {
				name = "gain"
			}
			cols := slices.Clone(t.Columns)
			for i := range cols {
				cols[i].Label = cols[i].GridName() // never "": a reader keys on it
			}
			out = append(out, tableView{name, p.in.App, p.in.Params, t.N, t.Eps, cols, t.Rows})
		}
	}
	return out
}

// problem is one obstacle problem of the results store.
type problem struct{ in jobs.Instance }

func (p problem) n() int       { return p.in.N }
func (p problem) eps() float64 { return p.in.Eps }

// resultProblems returns the problems with successful runs that --n and
// --eps select, in store order: nil when the store has no successful run,
// an error naming n and ε when it has some but none match.
func resultProblems(recs []jobs.RunRecord, f *resultsFlags, dir string) ([]problem, error) {
	var all, probs []problem
	for _, r := range recs {
		p := problem{r.Job.Instance()}
		if !r.OK() || slices.ContainsFunc(all, func(q problem) bool { return q.in.Equal(p.in) }) {
			continue
		}
		all = append(all, p)
		if (f.n == 0 || p.n() == f.n) && (f.eps == 0 || p.eps() == f.eps) {
			probs = append(probs, p)
		}
	}
	if len(all) == 0 || len(probs) > 0 {
		return probs, nil
	}
	want := []string{}
	if f.n != 0 {
		want = append(want, fmt.Sprintf("n = %d", f.n))
	}
	if f.eps != 0 {
		want = append(want, fmt.Sprintf("ε = %g", f.eps))
	}
	have := make([]string, len(all))
	for i, p := range all {
		have[i] = fmt.Sprintf("n = %d ε = %g", p.n(), p.eps())
		if p.in.App != "obstacle" {
			have[i] = p.in.String()
		}
	}
	return nil, fmt.Errorf("gridtui results: no successful runs match %s in %s (recorded: %s)",
		strings.Join(want, ", "), dir, strings.Join(have, "; "))
}

// writeTablesCSV writes the tables of every problem as one CSV in long form:
// one line per cell that was run, identified by table, n, ε, cores, grid,
// scheme and inventory (jobs.RunConfig.Inventory), then the application and
// its parameters (jobs.Instance.ParamKey; after the older eight columns, so
// that their readers keep working), so tables with different columns share
// one header.
func writeTablesCSV(w io.Writer, recs []jobs.RunRecord, probs []problem, kinds []jobs.TableKind) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"table", "n", "eps", "cores", "grid", "scheme", "value", "inventory", "app", "params"})
	for _, p := range probs {
		for _, k := range kinds {
			t := jobs.BuildTableOf(k, recs, p.in)
			name := "time_s"
			if k == jobs.GainTable {
				name = "gain"
			}
			for _, r := range t.Rows {
				for i, v := range r.Cells {
					if math.IsNaN(v) {
						continue
					}
					c := t.Columns[i]
					_ = cw.Write([]string{name, strconv.Itoa(p.n()), strconv.FormatFloat(p.eps(), 'g', -1, 64),
						strconv.Itoa(r.Cores), c.Grid, string(c.Scheme), strconv.FormatFloat(v, 'g', -1, 64), c.Inventory,
						p.in.App, p.in.ParamKey()})
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("gridtui results: write csv: %w", err)
	}
	return nil
}

// listRuns prints the recorded runs of the store in dir, one per line, in
// format, each with its application; as text, an empty store says so.
func listRuns(w io.Writer, recs []jobs.RunRecord, format jobs.TableFormat, dir string) error {
	head := []string{"id", "app", "n", "ε", "scheme", "nodes", "cores", "grid", "wall (s)", "true residual", "outcome", "inventory"}
	rows := make([][]string, 0, len(recs))
	for _, r := range recs {
		res := ""
		if r.TrueResidual != nil {
			res = fmt.Sprintf("%.3g", float64(*r.TrueResidual))
		}
		out := r.Outcome
		if r.Reason != "" {
			out += ": " + r.Reason
		}
		n, eps := "–", "–" // an application that declares no n (sparse, exec) records 0
		if r.Job.N > 0 {
			n = strconv.Itoa(r.Job.N)
		}
		if r.Job.Eps > 0 {
			eps = strconv.FormatFloat(r.Job.Eps, 'g', -1, 64)
		}
		rows = append(rows, []string{r.ID, r.Job.Instance().App, n, eps, string(r.Job.Scheme),
			strconv.Itoa(r.Job.Nodes), strconv.Itoa(r.Job.Cores), r.Job.Grid, fmt.Sprintf("%.3f", r.WallSeconds), res, out,
			jobs.InventoryName(r.Job.Inventory)})
	}
	switch format {
	case jobs.FormatCSV:
		cw := csv.NewWriter(w)
		head[3], head[8] = "eps", "wall_s"
		for i, r := range recs {
			rows[i][11] = r.Job.Inventory
		}
		_ = cw.Write(head)
		_ = cw.WriteAll(rows)
		if err := cw.Error(); err != nil {
			return fmt.Errorf("gridtui results: write csv: %w", err)
		}
		return nil
	case jobs.FormatMarkdown:
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, r := range rows {
			for i := range r {
				r[i] = strings.ReplaceAll(r[i], "|", "\\|")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return nil
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no runs recorded in %s\n", dir)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		if r[9] == "" {
			r[9] = "-"
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}
