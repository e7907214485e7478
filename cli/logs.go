package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/internal/termsafe"
)

// logSlack widens a run's time window for its workers' log lines: start-up
// before the run's clock starts, stopping after it ends.
const logSlack = time.Minute

func newLogsCmd(g *globalFlags) *cobra.Command {
	f := &resultsFlags{}
	var all bool
	cmd := &cobra.Command{
		Use:   "logs RUN [NODE...]",
		Short: "Print the worker logs of a recorded run, read from each node's host",
		Long: "logs reads each node's worker log (worker-NODE.log in its work directory, kept on the\n" +
			"host where it ran) over SSH or from the local disk and prints the lines of the run's\n" +
			"time, node by node. A Slurm node's log is read where its step wrote it, in the work\n" +
			"directory it shares with the site's frontend: over SSH to the frontend, or in this\n" +
			"host's home when the site has no frontend. RUN is a run id of `gridtui results --list`\n" +
			"or a prefix of it; NODE names nodes of the run (default: all of them).",
		Example: "  gridtui logs 20261121T184311Z-3cf906\n  gridtui logs 20261121T18 alpha-2 --all",
		Args:    runIDArgs(-1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogs(cmd, g, f, args[0], args[1:], all)
		},
	}
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "results store directory (default $GRIDTUI_DATA_DIR, else $XDG_DATA_HOME/gridtui)")
	cmd.Flags().BoolVar(&all, "all", false, "print the whole log, not only the run's time")
	return cmd
}

func runLogs(cmd *cobra.Command, g *globalFlags, f *resultsFlags, id string, nodes []string, all bool) error {
	_, rec, err := findRun(cmd, f, id)
	if err != nil {
		return err
	}
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	hosts := map[string]inventory.Host{}
	for _, h := range inv.Hosts() {
		hosts[h.Name] = h
	}
	var names []string
	for _, n := range rec.Nodes {
		names = append(names, n.Name)
	}
	for _, n := range nodes {
		if !slices.Contains(names, n) {
			return usageErrorf("gridtui logs: %s is no node of run %s (its nodes: %s)", n, rec.ID, strings.Join(names, ", "))
		}
	}
	if len(nodes) > 0 {
		names = nodes
	}
	from, to := rec.Time.Add(-logSlack), rec.Time.Add(rec.Wall()+logSlack)
	out := cmd.OutOrStdout()
	failed := 0
	for i, n := range names {
		if i > 0 {
			fmt.Fprintln(out)
		}
		h, ok := hosts[n]
		if !ok {
			fmt.Fprintf(out, "== %s: not in the inventory %s\n", n, inv.Source)
			failed++
			continue
		}
		data, where, err := deploy.ReadWorkerLog(cmd.Context(), inv, h, n, deploy.Options{})
		if err != nil {
			fmt.Fprintf(out, "== %s: %v\n", n, err)
			failed++
			continue
		}
		fmt.Fprintf(out, "== %s (%s)\n", n, where)
		writeLogWindow(out, data, from, to, all, rec.WorkerRun)
	}
	if failed == len(names) {
		return fmt.Errorf("gridtui logs: no log of run %s could be read", rec.ID)
	}
	return nil
}

// writeLogWindow writes the lines of a worker log (slog text lines, "time=…")
// of one run, with the lines that continue them; all writes everything.
// The lines a worker stamped with the run's tag (run=…, engine.RunTag)
// bound it: from the first to the last, without those of other runs (a
// worker serves run after run). A log with no line of the tag (an older
// record) is cut to the lines stamped between from and to. Control
// characters are quoted: a log may hold what a peer sent.
func writeLogWindow(w io.Writer, data []byte, from, to time.Time, all bool, tag string) {
	entries := logEntries(data)
	first, last := -1, -1
	for i, e := range entries {
		if tag != "" && runOf(e[0]) == tag {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i, e := range entries {
		keep := all
		switch {
		case all:
		case first >= 0:
			r := runOf(e[0])
			keep = i >= first && i <= last && (r == "" || r == tag)
		default:
			t, ok := logTime(e[0])
			keep = ok && !t.Before(from) && !t.After(to)
		}
		if keep {
			for _, line := range e {
				fmt.Fprintln(w, quoteLine(line))
			}
		}
	}
}

// logEntries splits a log into entries: a line stamped time=… and the
// lines that continue it (a stack dump, a panic). Lines before the first
// stamp are an entry of their own.
func logEntries(data []byte) [][]string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out [][]string
	for sc.Scan() {
		line := sc.Text()
		if _, ok := logTime(line); ok || len(out) == 0 {
			out = append(out, []string{line})
			continue
		}
		out[len(out)-1] = append(out[len(out)-1], line)
	}
	return out
}

// runOf reads the run tag of a slog text line (run=…), "" when it has none.
func runOf(line string) string {
	i := strings.Index(line, " run=")
	if i < 0 {
		return ""
	}
	tag, _, _ := strings.Cut(line[i+len(" run="):], " ")
	return tag
}

// logTime reads the time of a slog text line.
func logTime(line string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(line, "time=")
	if !ok {
		return time.Time{}, false
	}
	stamp, _, _ := strings.Cut(rest, " ")
	t, err := time.Parse(time.RFC3339Nano, stamp)
	return t, err == nil
}

// quoteLine quotes the control characters of a line read from a host.
func quoteLine(s string) string { return termsafe.Line(s) }
