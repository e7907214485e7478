package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

type benchPredictFlags struct {
	dataDir   string
	maxTraced int
	shared    int
	tolerance float64
	json      bool
}

func newBenchPredictCmd() *cobra.Command {
	f := &benchPredictFlags{}
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Validate gridtui predict: a store's larger runs against predictions from its smaller ones",
		Long: "predict reads a results store (e.g. the one `gridtui bench study --matrix\n" +
			"testdata/study/predict.toml` filled), predicts every completed run of more than\n" +
			"--max-trace-nodes nodes from the runs of at most that many nodes of the same problem, and\n" +
			"prints per problem, node count and scheme the predicted against the median measured time,\n" +
			"how many are within --tolerance, and whether the schemes are ranked in the measured order.\n" +
			"scripts/predict-validate.sh runs the whole validation on the multi-host harness.",
		Example: "  gridtui bench predict --data-dir store --max-trace-nodes 4",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := jobs.DataDir(f.dataDir)
			if err != nil {
				return err
			}
			res, err := jobs.Load(dir)
			if err != nil {
				return err
			}
			v, err := predict.Validate(res, f.maxTraced, f.tolerance, f.shared)
			if err != nil {
				return err
			}
			if f.json {
				return jsonout.Write(cmd.OutOrStdout(), v)
			}
			return writeValidation(cmd.OutOrStdout(), v)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	fl.IntVar(&f.maxTraced, "max-trace-nodes", 4, "predict from runs of at most this many nodes, the larger ones")
	fl.IntVar(&f.shared, "shared-cores", 0, "the runs' nodes all shared one host of this many cores (the multi-host test harness: the machine's)")
	fl.Float64Var(&f.tolerance, "tolerance", 0.15, "relative error a prediction must be within")
	fl.BoolVar(&f.json, "json", false, "print the validation as JSON")
	return cmd
}

// writeValidation prints the validation as a Markdown table and a summary.
func writeValidation(w io.Writer, v *predict.Validation) error {
	var b strings.Builder
	fmt.Fprintln(&b, "| app | n | ε | nodes | scheme | predicted (s) | measured (s), range | runs | error | predicted iterations | measured iterations |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|")
	for _, c := range v.Cases {
		p := c.Problem
		if c.Reason != "" {
			fmt.Fprintf(&b, "| %s | %d | %g | %d | %s | — | %.2f (%.2f–%.2f) | %d | %s | | %.0f |\n",
				p.App, p.N, p.Eps, c.Nodes, c.Scheme, c.Measured, c.MeasuredMin, c.MeasuredMax, c.Runs, c.Reason, c.MeasuredIterations)
			continue
		}
		mark := ""
		if math.Abs(c.Error) > v.Tolerance {
			mark = " ✗"
		}
		fmt.Fprintf(&b, "| %s | %d | %g | %d | %s | %.2f | %.2f (%.2f–%.2f) | %d | %+.0f %%%s | %.0f | %.0f |\n",
			p.App, p.N, p.Eps, c.Nodes, c.Scheme, c.Predicted, c.Measured, c.MeasuredMin, c.MeasuredMax, c.Runs,
			100*c.Error, mark, c.PredictedIterations, c.MeasuredIterations)
	}
	fmt.Fprintln(&b)
	for _, r := range v.Rankings {
		right := "right"
		if !r.Right {
			right = "WRONG"
		}
		overlap := ""
		if !r.Separated {
			overlap = " (measured runs overlap)"
		}
		fmt.Fprintf(&b, "ranking %s n = %d, %d nodes: predicted %s, measured %s: %s%s\n", r.Problem.App, r.Problem.N, r.Nodes,
			joinSchemes(r.Predicted, r.PredictedTies), joinSchemes(r.Measured, r.MeasuredTies), right, overlap)
	}
	pct := func(a, n int) float64 {
		if n == 0 {
			return 0
		}
		return 100 * float64(a) / float64(n)
	}
	fmt.Fprintf(&b, "within %.0f %%: %d of %d cases (%.0f %%); %d without a prediction\n", 100*v.Tolerance,
		v.Within, len(v.Cases), pct(v.Within, len(v.Cases)), len(v.Cases)-v.Predicted())
	fmt.Fprintf(&b, "within %.0f %% of the fastest run of each case: %d of %d (%.0f %%)\n", 100*v.Tolerance,
		v.WithinFastest, len(v.Cases), pct(v.WithinFastest, len(v.Cases)))
	fmt.Fprintf(&b, "schemes ranked in the measured order: %d of %d (%.0f %%)\n", v.Ranked, len(v.Rankings), pct(v.Ranked, len(v.Rankings)))
	fmt.Fprintf(&b, "rankings whose measured runs do not overlap: %d of %d, ranked in the measured order: %d\n",
		v.Separated, len(v.Rankings), v.RankedSeparated)
	fmt.Fprintf(&b, "rankings the prediction calls (no two schemes predicted within %.0f %%): %d of %d, ranked in the measured order: %d\n",
		100*predict.CloseCall, v.Called, len(v.Rankings), v.RankedCalled)
	fmt.Fprintf(&b, "pairs of schemes in the measured order: %d of %d (%.0f %%); of the %d predicted within %.0f %% of each other: %d, of the %d further apart: %d\n",
		v.PairsRight, v.Pairs, pct(v.PairsRight, v.Pairs), v.ClosePairs, 100*predict.CloseCall, v.ClosePairsRight,
		v.Pairs-v.ClosePairs, v.PairsRight-v.ClosePairsRight)
	_, err := io.WriteString(w, b.String())
	return err
}

// joinSchemes writes schemes fastest first, "=" between two tied ones
// (ties[i−1] for the i-th), "<" between the others.
func joinSchemes(ss []jobs.Scheme, ties []bool) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			if i-1 < len(ties) && ties[i-1] {
				b.WriteString(" = ")
			} else {
				b.WriteString(" < ")
			}
		}
		b.WriteString(string(s))
	}
	return b.String()
}
