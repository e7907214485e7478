package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/termsafe"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// WriteText prints the report for a terminal: outcome, wall time, the
// nodes with their iterations and times, the true residual, the
// application's figures and checks, traffic per network and the computing
// gain.
// Control characters from outside (a log tail, a remote error) are quoted.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	problem := FormatParams(r.Spec.Params)
	fmt.Fprintf(&b, "run %s: %s, %s, %s iterations (%s detector), %d nodes\n",
		r.Spec.Name, r.Spec.App, problem, r.Spec.Scheme, r.Spec.Detector, len(r.Nodes))
	fmt.Fprintf(&b, "outcome:   %s\n", r.Outcome)
	if r.Cause != "" {
		who := "run"
		if r.FailedNode != "" {
			who = "node " + r.FailedNode
		}
		fmt.Fprintf(&b, "cause:     %s: %s\n", who, r.Cause)
	}
	for _, rc := range r.Recoveries {
		fmt.Fprintf(&b, "recovered: %s\n", rc)
	}
	for i, l := range r.FailedLog {
		head := "           "
		if i == 0 {
			head = "its log:   "
		}
		fmt.Fprintf(&b, "%s%s\n", head, l)
	}
	fmt.Fprintf(&b, "wall time: %s\n", r.Wall.Round(time.Millisecond))
	tw := columns.NewWriter(&b, 2)
	fmt.Fprintln(tw, "rank\tnode\tgroup\tpart\tcores\tstate\titerations\tlocal σ\tcompute\tsend\twait\tpeak RSS")
	for _, n := range r.Nodes {
		c := ""
		if n.Coordinator {
			c = "*"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d%s\t%s\t%d\t%s\t%d\t%.3g\t%s\t%s\t%s\t%s\n", n.Rank, n.Node, n.Group, c, orDash(n.Part), n.Cores,
			n.State, n.Iterations, n.Sigma, n.Compute.Round(time.Millisecond), n.Send.Round(time.Millisecond), n.Wait.Round(time.Millisecond),
			formatRSS(n.PeakRSS))
	}
	tw.Flush()
	fmt.Fprintln(&b, "(* coordinator)")
	r.writeOwnerHolds(&b)
	if r.Checked {
		r.writeFigures(&b)
	} else {
		fmt.Fprintln(&b, "true global residual: not computed (no complete solution)")
	}
	r.writeRoutes(&b)
	r.writeTraffic(&b)
	r.writeGateways(&b)
	r.writeGain(&b)
	r.writePrediction(&b)
	for _, o := range r.Outputs {
		fmt.Fprintf(&b, "wrote %s\n", o)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	if r.RecordID != "" {
		fmt.Fprintf(&b, "recorded as %s\n", r.RecordID)
	}
	// The one place the report's text leaves: names, a worker's log tail,
	// a remote error and a program's output all pass through termsafe.
	_, err := io.WriteString(w, termsafe.Text(b.String()))
	return err
}

// writeGain prints the computing gain, or why it is unknown.
func (r *Report) writeGain(b *strings.Builder) {
	switch {
	case r.Gain > 0 && r.T1Self:
		what := r.Spec.App + " " + FormatParams(r.Spec.Params)
		fmt.Fprintf(b, "computing gain: C_g = t1/ts = %.2f (this run is the fastest single-node run: t1 of later runs of %s)\n", r.Gain, what)
	case r.Gain > 0:
		fmt.Fprintf(b, "computing gain: C_g = t1/ts = %s / %s = %.2f\n", r.T1.Round(time.Millisecond), r.Wall.Round(time.Millisecond), r.Gain)
	case r.Outcome != "ok":
		fmt.Fprintf(b, "computing gain: unknown (the run did not complete: %s)\n", r.Outcome)
	default:
		where := ""
		switch r.Inventory {
		case "":
		case jobs.InventoryEmbedded:
			where = " on the embedded local grid"
		default:
			where = " on " + jobs.InventoryName(r.Inventory)
		}
		fmt.Fprintf(b, "computing gain: unknown (no single-node run of this problem%s in the results store: run it once with --nodes 1)\n", where)
	}
}

// writeRoutes lists each neighbour pair's network (Algorithm 1), or counts
// them for large runs.
func (r *Report) writeRoutes(b *strings.Builder) {
	if len(r.Routes) == 0 {
		return
	}
	if len(r.Routes) <= 8 {
		fmt.Fprint(b, "networks:")
		for _, rt := range r.Routes {
			fmt.Fprintf(b, "  %s↔%s %s", rt.A, rt.B, rt.Network)
			if rt.Via != "" {
				fmt.Fprintf(b, " via %s", rt.Via)
			}
		}
		fmt.Fprintln(b)
		return
	}
	count := map[probe.Kind]int{}
	var kinds []probe.Kind
	for _, rt := range r.Routes {
		if count[rt.Network] == 0 {
			kinds = append(kinds, rt.Network)
		}
		count[rt.Network]++
	}
	fmt.Fprintf(b, "networks: %d neighbour pairs:", len(r.Routes))
	for _, k := range kinds {
		fmt.Fprintf(b, " %d %s", count[k], k)
	}
	fmt.Fprintln(b)
}

func (r *Report) writeTraffic(b *strings.Builder) {
	if len(r.Traffic) == 0 {
		fmt.Fprintln(b, "traffic: none")
		return
	}
	nets := slices.Clone(r.Traffic)
	slices.SortFunc(nets, func(a, b solve.NetTraffic) int { return strings.Compare(a.Network, b.Network) })
	fmt.Fprint(b, "traffic:")
	for _, t := range nets {
		fmt.Fprintf(b, "  %s %d msgs %s", t.Network, t.Messages, formatBytes(t.Bytes))
		if t.Skipped > 0 {
			fmt.Fprintf(b, " (%d skipped)", t.Skipped)
		}
	}
	fmt.Fprintln(b)
}

// formatRSS prints a peak resident set in MiB ("-" when unknown).
func formatRSS(n uint64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func formatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// FormatParams lists an application's parameters as the job gave them
// (k = v, sorted by name): the report's problem line and an output's
// description.
func FormatParams(params map[string]string) string {
	if len(params) == 0 {
		return "default parameters"
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " = " + params[k]
	}
	return strings.Join(parts, ", ")
}

// writeFigures prints the true residual (or, when the application could not
// measure one, the residual its parts reported, called so) and the
// application's figures.
func (r *Report) writeFigures(b *strings.Builder) {
	if r.ResidualReported {
		fmt.Fprintf(b, "residual: %.3e (ε = %g), the largest σ the parts reported: not measured on the solution\n", r.Residual, r.Eps)
	} else {
		fmt.Fprintf(b, "true global residual: %.3e (ε = %g)\n", r.Residual, r.Eps)
	}
	if k := r.Spec.Iterations; k > 0 {
		fmt.Fprintf(b, "exactly %d sweeps of every part (iterations = %d): the residual is what they leave, not a convergence test\n", k, k)
	}
	verdict := "OK"
	if !r.FiguresOK {
		verdict = "FAILED"
	}
	for _, f := range r.Figures {
		text := f.Text
		if text == "" {
			text = fmt.Sprintf("%.3g", f.Value)
		}
		fmt.Fprintf(b, "%s: %s\n", f.Name, text)
	}
	for _, c := range r.Checks {
		text := c.Text
		if text == "" {
			text = fmt.Sprintf("%.3g", c.Value)
		}
		ok := "ok"
		if !c.OK {
			ok = "FAILED"
		}
		fmt.Fprintf(b, "%s: %s %s\n", c.Name, text, ok)
	}
	fmt.Fprintf(b, "application check: %s\n", verdict)
}

// orDash returns s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// writeOwnerHolds says which parts their host's owner policy held, and for
// how long: the run went on without them (asynchronous) or waited.
func (r *Report) writeOwnerHolds(b *strings.Builder) {
	for _, n := range r.Nodes {
		if n.OwnerHolds == 0 {
			continue
		}
		times := "once"
		if n.OwnerHolds > 1 {
			times = fmt.Sprintf("%d times", n.OwnerHolds)
		}
		fmt.Fprintf(b, "owner policy: %s suspended by its owner %s, %s in all\n", n.Node, times, n.OwnerHeld.Round(time.Second))
	}
}
