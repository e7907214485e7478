package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// TestLogs checks `gridtui logs RUN [NODE]`: each node's worker log, read
// from its host, cut to the run's time, and a missing log named.
func TestLogs(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := jobs.RunRecord{Time: start, Job: jobs.RunConfig{App: "obstacle", N: 8, Eps: 1e-6, Scheme: jobs.Synchronous, Nodes: 2, Cores: 2},
		WallSeconds: 2, Outcome: jobs.OutcomeFailed, Reason: "node alpha-2 failed",
		Nodes: []jobs.NodeRecord{{Name: "alpha-1"}, {Name: "alpha-2"}}}
	if err := jobs.Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	line := func(at time.Time, msg string) string {
		return "time=" + at.Format(time.RFC3339Nano) + " level=INFO msg=\"" + msg + "\" node=alpha-1\n"
	}
	h := inventory.Host{Name: "alpha-1", Workdir: ".gridtui"}
	wd := filepath.Join(os.Getenv("XDG_STATE_HOME"), "gridtui", "local", "alpha-1")
	if err := os.MkdirAll(wd, 0o700); err != nil {
		t.Fatal(err)
	}
	log := line(start.Add(-time.Hour), "an older run") + line(start.Add(time.Second), "this run") + "  a continuation\n" +
		line(start.Add(time.Hour), "a later run")
	if err := os.WriteFile(filepath.Join(wd, deploy.WorkerLogFile(h.Name)), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	out := string(runGridtui(t, "logs", rec.ID, "alpha-1", "--data-dir", dir))
	if !strings.Contains(out, "this run") || !strings.Contains(out, "a continuation") || strings.Contains(out, "older") || strings.Contains(out, "later") {
		t.Errorf("logs of alpha-1:\n%s", out)
	}
	out = string(runGridtui(t, "logs", rec.ID, "--data-dir", dir))
	if !strings.Contains(out, "this run") || !strings.Contains(out, "alpha-2") {
		t.Errorf("logs of the run (alpha-2's missing log named):\n%s", out)
	}
}

// TestRunNotFound: a run id that names no run, or several, is an error of
// the command that was typed (logs, results show), not of another.
func TestRunNotFound(t *testing.T) {
	dir := resultsStore(t)
	for _, args := range [][]string{{"logs", "nope"}, {"results", "show", "nope"}, {"results", "export", "2"}} {
		root := newRootCmd()
		root.SetOut(new(strings.Builder))
		root.SetErr(new(strings.Builder))
		root.SetArgs(append(args, "--data-dir", dir))
		err := root.Execute()
		want := "gridtui " + strings.Join(args[:len(args)-1], " ") + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("gridtui %v: %v, want an error starting %q", args, err, want)
		}
	}
}

// TestRunIDMissing: logs and results show without a run id say what to
// give, as usage errors (exit 2).
func TestRunIDMissing(t *testing.T) {
	for _, args := range [][]string{{"logs"}, {"results", "show"}, {"results", "export"}, {"results", "show", "a", "b"}} {
		root := newRootCmd()
		root.SetOut(new(strings.Builder))
		root.SetErr(new(strings.Builder))
		root.SetArgs(args)
		err := root.Execute()
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "run id") {
			t.Errorf("gridtui %v: %v (exit %d), want a usage error asking for one run id", args, err, exitCode(err))
		}
	}
}

// TestLogWindowCutsToTheRun: a worker that served four runs in a second
// logged them all within the time window; the run's tag keeps its own
// lines (and their continuations, and untagged lines among them) only.
func TestLogWindowCutsToTheRun(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var log strings.Builder
	for i, run := range []string{"00000000000000a1", "00000000000000b1", "00000000000000c1", "00000000000000d1"} {
		stamp := at.Add(time.Duration(i) * 200 * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(&log, "time=%s level=INFO msg=\"engine: task started\" node=alpha-1 run=%s rank=0\n", stamp, run)
		fmt.Fprintf(&log, "time=%s level=WARN msg=\"engine: peer silent\" node=alpha-1 peer=alpha-2 of=%s\n", stamp, run)
		fmt.Fprintf(&log, "time=%s level=INFO msg=\"engine: run ended\" node=alpha-1 run=%s reason=done\n  continued %s\n", stamp, run, run)
	}
	var out strings.Builder
	writeLogWindow(&out, []byte(log.String()), at.Add(-time.Minute), at.Add(time.Minute), false, "00000000000000b1")
	got := out.String()
	if n := strings.Count(got, "\n"); n != 4 || strings.Count(got, "b1") != 4 {
		t.Errorf("cut to run b1: %d lines:\n%s", n, got)
	}
	out.Reset()
	writeLogWindow(&out, []byte(log.String()), at.Add(-time.Minute), at.Add(time.Minute), false, "")
	if n := strings.Count(out.String(), "\n"); n != 16 {
		t.Errorf("an old record (no tag) keeps the window: %d lines", n)
	}
}
