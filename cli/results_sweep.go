package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/sweep"
)

// newResultsSweepCmd returns `gridtui results sweep [SWEEP]`.
func newResultsSweepCmd(f *resultsFlags) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "sweep [SWEEP]",
		Short: "List the parameter sweeps, or print one's results table",
		Long: "sweep with no argument lists the sweeps whose job logs are in the data directory (id,\n" +
			"start, instances, ok, failed, not run). With a sweep's id (or an unambiguous prefix) it\n" +
			"prints its results table from its job log: one row per instance, its parameters, the\n" +
			"outcome of its last attempt, attempts, iterations, true residual, times, hosts and run id.",
		Example: "  gridtui results sweep\n" +
			"  gridtui results sweep sweep-20261128T060403Z-4e0a62 --format csv > table.csv\n" +
			"  gridtui results sweep sweep-20261128 --format json | jq '.instances[] | select(.outcome != \"ok\")'",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != sweep.FormatTable && format != sweep.FormatCSV && format != sweep.FormatJSON {
				return usageErrorf("gridtui results sweep: --format %q: want table, csv or json", format)
			}
			if f.json {
				format = sweep.FormatJSON
			}
			dir, err := jobs.DataDir(f.dataDir)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return listSweeps(cmd.OutOrStdout(), dir, format)
			}
			id, err := findSweep(dir, args[0])
			if err != nil {
				return err
			}
			l, err := sweep.ReadLog(dir, id)
			if err != nil {
				return err
			}
			tab, err := sweep.TableOf(l)
			if err != nil {
				return err
			}
			return tab.Write(cmd.OutOrStdout(), format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "table, csv or json")
	return cmd
}

// findSweep resolves an id or a prefix of one.
func findSweep(dir, prefix string) (string, error) {
	ids, err := sweep.ListSweeps(dir)
	if err != nil {
		return "", err
	}
	var match []string
	for _, id := range ids {
		if id == prefix {
			return id, nil
		}
		if strings.HasPrefix(id, prefix) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return "", usageError(fmt.Errorf("%w: %s in %s (gridtui results sweep lists them)", sweep.ErrNoSweep, prefix, dir))
	case 1:
		return match[0], nil
	}
	return "", usageErrorf("gridtui results sweep: %q names %d sweeps: %s", prefix, len(match), strings.Join(match, ", "))
}

// sweepLine is one sweep in the list.
type sweepLine struct {
	Sweep     string    `json:"sweep"`
	Started   time.Time `json:"started"`
	App       string    `json:"app"`
	Axes      string    `json:"parameters"`
	Instances int       `json:"instances"`
	OK        int       `json:"ok"`
	Failed    int       `json:"failed"`
	NotRun    int       `json:"not_run"`
	Error     *string   `json:"error"` // a job log that cannot be read
}

func listSweeps(w io.Writer, dir, format string) error {
	ids, err := sweep.ListSweeps(dir)
	if err != nil {
		return err
	}
	lines := make([]sweepLine, 0, len(ids))
	for _, id := range ids {
		lines = append(lines, sweepSummaryLine(dir, id))
	}
	if format == sweep.FormatJSON {
		return jsonout.Write(w, lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(w, "no sweeps in %s (gridtui run --sweep name=values starts one)\n", dir)
		return nil
	}
	sep := "\t"
	tw := io.Writer(w)
	var tabw *columns.Writer
	if format == sweep.FormatCSV {
		sep = ","
	} else {
		tabw = columns.NewWriter(w, 2)
		tw = tabw
	}
	fmt.Fprintln(tw, strings.Join([]string{"sweep", "started", "app", "parameters", "instances", "ok", "failed", "not_run"}, sep))
	for _, l := range lines {
		if l.Error != nil {
			fmt.Fprintf(tw, "%s%s%s\n", l.Sweep, sep, *l.Error)
			continue
		}
		fmt.Fprintln(tw, strings.Join([]string{l.Sweep, l.Started.UTC().Format(time.RFC3339), l.App, l.Axes,
			fmt.Sprint(l.Instances), fmt.Sprint(l.OK), fmt.Sprint(l.Failed), fmt.Sprint(l.NotRun)}, sep))
	}
	if tabw != nil {
		return tabw.Flush()
	}
	return nil
}

func sweepSummaryLine(dir, id string) sweepLine {
	line := sweepLine{Sweep: id}
	l, err := sweep.ReadLog(dir, id)
	var tab sweep.Table
	if err == nil {
		tab, err = sweep.TableOf(l)
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, sweep.ErrNoSweep) {
			msg = "no job log"
		}
		line.Error = &msg
		return line
	}
	spec, _ := l.Spec()
	line.Started, line.App, line.Instances = l.Header.Started, spec.App, l.Header.Instances
	var axes []string
	for _, a := range l.Header.Axes {
		axes = append(axes, fmt.Sprintf("%s(%d)", a.Name, len(a.Values)))
	}
	line.Axes = strings.Join(axes, "×")
	for _, r := range tab.Rows {
		switch r.Outcome {
		case sweep.OutcomeOK:
			line.OK++
		case sweep.OutcomeNotRun, sweep.OutcomeCancelled:
			line.NotRun++
		default:
			line.Failed++
		}
	}
	return line
}
