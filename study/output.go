package study

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// WriteText prints the study for a terminal: per size, Table III, Table IV,
// a gain chart of width columns and the ordering checks; then the verdict,
// the skipped combinations and the failed runs.
func (r *Result) WriteText(w io.Writer, width int) error {
	var b bytes.Buffer
	var all []OrderCheck
	for _, n := range r.Sizes() {
		times, gains := r.Tables(n)
		b.WriteString("\n" + times.Text() + "\n" + gains.Text() + "\n")
		if err := jobs.RenderGainChart(&b, width, 18, gains); err != nil {
			return err
		}
		checks := CheckOrdering(gains)
		all = append(all, checks...)
		for _, c := range checks {
			b.WriteString("  " + c.String() + "\n")
		}
	}
	if len(all) > 0 {
		b.WriteString("\n" + Verdict(all) + "\n")
	}
	r.writeProblems(&b, "")
	fmt.Fprintf(&b, "%d runs in %s\n", len(r.Runs), r.Elapsed.Round(time.Second))
	_, err := w.Write(b.Bytes())
	return err
}

// writeProblems lists skipped combinations and failed runs, each line
// prefixed by bullet.
func (r *Result) writeProblems(b *bytes.Buffer, bullet string) {
	for _, s := range r.Skipped {
		fmt.Fprintf(b, "%sskipped: n=%d, %s, %d nodes × %d cores: %s\n", bullet, s.N, s.Grid, s.Nodes, s.Cores, s.Reason)
	}
	for _, d := range r.Failed() {
		why := d.Outcome
		if d.Err != nil {
			why += ": " + d.Err.Error()
		}
		fmt.Fprintf(b, "%sfailed: %s: %s\n", bullet, d.Run.Spec.Name, strings.ReplaceAll(why, "\n", " "))
	}
}

// WriteDir writes the study's files into dir: per size n, tableIII-nN and
// tableIV-nN as .txt, .csv and .md, gain-nN.svg and .png; runs.csv (every
// run); summary.md (all tables, the ordering checks and the verdict). It
// returns the paths written.
func (r *Result) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("study: output directory %s: %w", dir, err)
	}
	var paths []string
	write := func(name string, fill func(w io.Writer) error) error {
		var buf bytes.Buffer
		if err := fill(&buf); err != nil {
			return err
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("study: write %s: %w", p, err)
		}
		paths = append(paths, p)
		return nil
	}
	for _, n := range r.Sizes() {
		times, gains := r.Tables(n)
		for _, t := range []struct {
			name  string
			table jobs.Table
		}{{"tableIII", times}, {"tableIV", gains}} {
			for _, f := range []struct {
				ext    string
				format jobs.TableFormat
			}{{"txt", jobs.FormatText}, {"csv", jobs.FormatCSV}, {"md", jobs.FormatMarkdown}} {
				if err := write(fmt.Sprintf("%s-n%d.%s", t.name, n, f.ext), func(w io.Writer) error { return t.table.Write(w, f.format) }); err != nil {
					return paths, err
				}
			}
		}
		for _, f := range PlotFormats {
			if err := write(fmt.Sprintf("gain-n%d.%s", n, f), func(w io.Writer) error { return WriteGainPlot(w, gains, f) }); err != nil {
				return paths, err
			}
		}
	}
	if err := write("runs.csv", r.writeRunsCSV); err != nil {
		return paths, err
	}
	return paths, write("summary.md", r.WriteSummary)
}

// WriteSummary writes the study as Markdown: what ran where, the tables,
// the ordering checks and the verdict, skipped and failed runs.
func (r *Result) WriteSummary(w io.Writer) error {
	var b bytes.Buffer
	m := r.Matrix
	fmt.Fprintf(&b, "# Study %s\n\n", m.Name)
	fmt.Fprintf(&b, "Started %s on %s (%s, %d cores, %s), inventory %s; %d runs in %s.\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Machine.Host, r.Machine.CPU, r.Machine.Cores,
		r.Machine.GoVersion, r.Grid, len(r.Runs), r.Elapsed.Round(time.Second))
	fmt.Fprintf(&b, "Obstacle problem, ε = %g, sizes %v, nodes %v, cores per node %v, %d repeat(s) per "+
		"configuration (cell = fastest), %d single-node run(s) per size for t1.\n", m.Eps, m.Sizes, m.Nodes, m.Cores, m.Repeats, m.SingleRepeats)
	var all []OrderCheck
	for _, n := range r.Sizes() {
		times, gains := r.Tables(n)
		fmt.Fprintf(&b, "\n## n = %d\n\n%s\n%s\n![gain n=%d](gain-n%d.svg)\n\n", n, times.Markdown(), gains.Markdown(), n, n)
		checks := CheckOrdering(gains)
		all = append(all, checks...)
		for _, c := range checks {
			b.WriteString("- " + c.String() + "\n")
		}
	}
	if len(all) > 0 {
		b.WriteString("\n**Verdict:** " + Verdict(all) + ".\n")
	}
	if len(r.Skipped) > 0 || len(r.Failed()) > 0 {
		b.WriteString("\n## Skipped and failed\n\n")
		r.writeProblems(&b, "- ")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeRunsCSV writes one line per run of the study, in run order.
func (r *Result) writeRunsCSV(w io.Writer) error {
	byID := map[string]jobs.RunRecord{}
	for _, rec := range r.Records {
		byID[rec.ID] = rec
	}
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"index", "id", "n", "eps", "grid", "nodes", "cores", "scheme", "detector", "wall_seconds",
		"outcome", "iterations_min", "iterations_max", "true_residual", "bytes_by_network", "skipped_by_network"})
	for _, d := range r.Runs {
		rec, ok := byID[d.RecordID]
		s := d.Run.Spec
		row := []string{strconv.Itoa(d.Run.Index), d.RecordID, s.Params["n"], s.Params["eps"],
			d.Run.Grid, strconv.Itoa(len(s.Nodes.Hosts)), strconv.Itoa(len(s.Nodes.Hosts) * s.Cores), string(s.Scheme), string(s.Detector),
			strconv.FormatFloat(d.Wall.Seconds(), 'f', 4, 64), d.Outcome}
		lo, hi, res, bytesBy, skipBy := "", "", "", "", ""
		if ok {
			lo, hi = iterRange(rec)
			if rec.TrueResidual != nil {
				res = strconv.FormatFloat(float64(*rec.TrueResidual), 'g', 4, 64)
			}
			bytesBy, skipBy = statsBy(rec, "bytes."), statsBy(rec, "skipped.")
		}
		if err := cw.Write(append(row, lo, hi, res, bytesBy, skipBy)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func iterRange(rec jobs.RunRecord) (string, string) {
	if len(rec.Nodes) == 0 {
		return "", ""
	}
	lo, hi := rec.Nodes[0].Iterations, rec.Nodes[0].Iterations
	for _, n := range rec.Nodes {
		lo, hi = min(lo, n.Iterations), max(hi, n.Iterations)
	}
	return strconv.Itoa(lo), strconv.Itoa(hi)
}

// statsBy sums the nodes' stats with the prefix per network
// ("infiniband=123 ethernet=45"); each message is counted at both ends.
func statsBy(rec jobs.RunRecord, prefix string) string {
	sum := map[string]float64{}
	for _, n := range rec.Nodes {
		for k, v := range n.Stats {
			if net, ok := strings.CutPrefix(k, prefix); ok {
				sum[net] += v
			}
		}
	}
	var keys []string
	for k := range sum {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatFloat(sum[k], 'f', 0, 64)
	}
	return strings.Join(parts, " ")
}
