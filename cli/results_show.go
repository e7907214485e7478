package cli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/study"
)

// newResultsShowCmd returns `gridtui results show RUN`.
func newResultsShowCmd(f *resultsFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "show RUN",
		Short: "Print one recorded run: its job, machine, outcome, residual, gain and nodes",
		Long: "show prints everything the results store holds about one run, named by its id (as\n" +
			"`gridtui results --list` prints it) or an unambiguous prefix of it.",
		Example: "  gridtui results show 20261121T184311Z-3cf906\n  gridtui results show 20261121T18 --json",
		Args:    runIDArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, rec, err := findRun(cmd, f, args[0])
			if err != nil {
				return err
			}
			if f.json {
				return jsonout.Write(cmd.OutOrStdout(), runView{rec, gainOf(res, rec)})
			}
			return writeRun(cmd.OutOrStdout(), rec, gainOf(res, rec))
		},
	}
}

// newResultsExportCmd returns `gridtui results export RUN`.
func newResultsExportCmd(f *resultsFlags) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export RUN",
		Short: "Write a recorded run's residual history (CSV) and its problem's gain chart (SVG)",
		Long: "export writes RUN-residuals.csv (iteration, seconds since the start, σ: the residual\n" +
			"history the run recorded) and RUN-gain.svg (the computing gain C_g = t1/ts against the\n" +
			"number of cores for the run's problem, every recorded configuration and scheme) into --out.",
		Example: "  gridtui results export 20261121T184311Z-3cf906 --out figures",
		Args:    runIDArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, rec, err := findRun(cmd, f, args[0])
			if err != nil {
				return err
			}
			paths, err := exportRun(out, res, rec)
			for _, p := range paths {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", p)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", ".", "directory to write into")
	return cmd
}

// runView is `gridtui results show RUN --json`: the record and its gain.
type runView struct {
	jobs.RunRecord
	Gain float64 `json:"gain,omitempty"`
}

// findRun loads the store and returns the record whose id is, or starts
// with, id.
func findRun(cmd *cobra.Command, f *resultsFlags, id string) (*jobs.Results, jobs.RunRecord, error) {
	dir, err := jobs.DataDir(f.dataDir)
	if err != nil {
		return nil, jobs.RunRecord{}, err
	}
	res, err := jobs.Load(dir)
	if err != nil {
		return nil, jobs.RunRecord{}, err
	}
	if lerr := res.Err(); lerr != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", lerr)
	}
	var found []jobs.RunRecord
	for _, r := range res.Records {
		if r.ID == id {
			return res, r, nil
		}
		if id != "" && strings.HasPrefix(r.ID, id) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return res, found[0], nil
	case 0:
		return nil, jobs.RunRecord{}, fmt.Errorf("%s: no run %q in %s (gridtui results --list lists them)", cmd.CommandPath(), id, res.Path)
	}
	return nil, jobs.RunRecord{}, fmt.Errorf("%s: %q names %d runs in %s (%s, …): give more of the id", cmd.CommandPath(), id, len(found), res.Path, found[0].ID)
}

// gainOf is the run's computing gain against the store's fastest single-node
// run of its problem, 0 when unknown.
func gainOf(res *jobs.Results, rec jobs.RunRecord) float64 {
	if !rec.OK() {
		return 0
	}
	ref, ok := res.SingleNodeReferenceOf(rec.Job.Instance(), rec.Job.Inventory, rec.Job.Grid)
	if !ok {
		return 0
	}
	return jobs.ComputingGain(ref.Wall(), rec.Wall())
}

// writeRun prints a record for reading.
func writeRun(w io.Writer, r jobs.RunRecord, gain float64) error {
	j := r.Job
	fmt.Fprintf(w, "run %s  %s\n", r.ID, r.Time.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(w, "job: %s n = %d ε = %g, %s", j.App, j.N, j.Eps, j.Scheme)
	if j.Detector != "" {
		fmt.Fprintf(w, " (detector %s)", j.Detector)
	}
	fmt.Fprintf(w, ", %d nodes, %d cores, grid %s (%s)", j.Nodes, j.Cores, j.Grid, jobs.InventoryName(j.Inventory))
	if j.MaxIter > 0 {
		fmt.Fprintf(w, ", max %d iterations", j.MaxIter)
	}
	fmt.Fprintf(w, "\nconsole: %s (%s/%s, %d cores)\n", r.Machine.Host, r.Machine.OS, r.Machine.Arch, r.Machine.Cores)
	fmt.Fprintf(w, "outcome: %s", r.Outcome)
	if r.Reason != "" {
		fmt.Fprintf(w, ": %s", r.Reason)
	}
	fmt.Fprintf(w, "\nwall: %.3f s", r.WallSeconds)
	if gain > 0 {
		fmt.Fprintf(w, ", computing gain %.2f", gain)
	}
	switch {
	case r.TrueResidual != nil && r.ResidualReported:
		fmt.Fprintf(w, "\nresidual: %.3g (reported by the parts: not measured)", float64(*r.TrueResidual))
	case r.TrueResidual != nil:
		fmt.Fprintf(w, "\ntrue residual: %.3g", float64(*r.TrueResidual))
	}
	for _, c := range r.AppChecks() {
		fmt.Fprintf(w, "\n%s: %s ok=%t", c.Name, checkText(c), c.OK)
	}
	fmt.Fprintf(w, "\nresidual history: %d samples\n\n", len(r.Residuals))
	tw := columns.NewWriter(w, 2)
	fmt.Fprintln(tw, "NODE\tCLUSTER\tRANK\tCORES\tITERATIONS\tσ\tPEAK RSS\tERROR")
	for _, n := range r.Nodes {
		rss := "-"
		if n.PeakRSS > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(n.PeakRSS)/(1<<20))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3g\t%s\t%s\n", n.Name, dash(n.Cluster), n.Rank, n.Cores, n.Iterations, float64(n.Sigma), rss, dash(n.Err))
	}
	return tw.Flush()
}

// exportRun writes the run's residual history and its problem's gain chart
// into dir and returns the paths written.
func exportRun(dir string, res *jobs.Results, rec jobs.RunRecord) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("gridtui results export: %w", err)
	}
	var csvBuf bytes.Buffer
	cw := csv.NewWriter(&csvBuf)
	_ = cw.Write([]string{"iteration", "seconds", "sigma"})
	for _, s := range rec.Residuals {
		_ = cw.Write([]string{strconv.Itoa(s.Iteration), strconv.FormatFloat(s.Seconds, 'g', -1, 64), strconv.FormatFloat(float64(s.Sigma), 'g', -1, 64)})
	}
	cw.Flush()
	var svg bytes.Buffer
	gains := jobs.BuildTableOf(jobs.GainTable, res.Records, rec.Job.Instance())
	if err := study.WriteGainPlot(&svg, gains, "svg"); err != nil {
		return nil, fmt.Errorf("gridtui results export: gain chart of n = %d ε = %g: %w", rec.Job.N, rec.Job.Eps, err)
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{rec.ID + "-residuals.csv", csvBuf.Bytes()}, {rec.ID + "-gain.svg", svg.Bytes()}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return paths, fmt.Errorf("gridtui results export: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// runIDArgs takes a run id first, then at most max-1 more arguments (max < 0:
// any number): a missing id is named as one, with where to find it, rather
// than as "requires at least 1 arg(s)".
func runIDArgs(max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return fmt.Errorf("give a run id (gridtui results --list lists them)")
		case max >= 0 && len(args) > max:
			return fmt.Errorf("one run id, not %d arguments (%s)", len(args), strings.Join(args, " "))
		}
		return nil
	}
}

// checkText is how a recorded check of the application prints its value.
func checkText(c jobs.CheckRecord) string {
	if c.Text != "" {
		return c.Text
	}
	return fmt.Sprintf("%.3g", float64(c.Value))
}
