package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/poisson"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/sweep"
)

// flakyPoisson is the Poisson application with a way to fail once: the
// first sub-task built (on the worker) for n = fail_n creates the file
// marker and fails; later ones find it and run. The test binary registers
// it for itself and for the workers it starts (TestMain), as a user's
// module registers its applications.
type flakyPoisson struct{ poisson.App }

func init() { gridapp.Register("flakypoisson", flakyPoisson{}) }

func (flakyPoisson) Params() []gridapp.Param {
	return append(poisson.App{}.Params(),
		gridapp.IntParam("fail_n", 0, 0, poisson.MaxN, "the n whose first sub-task fails"),
		gridapp.StringParam("marker", "", nil, "the file whose absence makes it fail (absolute)"))
}

func (a flakyPoisson) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	if v.Int("n") == v.Int("fail_n") && v.String("marker") != "" {
		f, err := os.OpenFile(v.String("marker"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return nil, fmt.Errorf("flakypoisson: n = %d fails once (marker %s created)", v.Int("n"), v.String("marker"))
		}
	}
	return a.App.NewPart(v, sub)
}

func TestSweepUsageErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GRIDTUI_DATA_DIR", dir)
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# nothing\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		out  string
	}{
		"empty list":     {[]string{"--app", "poisson", "--sweep", "n="}, "--sweep n: jobs: invalid sweep: \"\": an empty value"},
		"unknown param":  {[]string{"--app", "poisson", "--sweep", "epsilon=1e-6,1e-7"}, `epsilon is no parameter of app poisson (did you mean "eps"?)`},
		"bad value":      {[]string{"--app", "poisson", "--sweep", "n=8,0"}, "sweep: n = 0:"},
		"bad range":      {[]string{"--app", "poisson", "--sweep", "eps=1e-6:1e-9:x0"}, "must be a number above 1"},
		"million":        {[]string{"--app", "poisson", "--sweep", "n=1:1000", "--sweep", "eps=1:1000"}, "make more than 10000 instances (1000 × 1000); allow more with --max-instances"},
		"empty file":     {[]string{"--app", "poisson", "--sweep-file", "blocks=" + empty}, "holds no value"},
		"no file":        {[]string{"--app", "poisson", "--sweep-file", "blocks=" + filepath.Join(dir, "nothere")}, "nothere"},
		"not name=value": {[]string{"--sweep", "n"}, "want name=values"},
		"unknown resume": {[]string{"--resume", "sweep-nosuch"}, "no such sweep: sweep-nosuch"},
		"resume and job": {[]string{"--resume", "sweep-x", "--sweep", "n=8"}, "give no --job"},
		"retries alone":  {[]string{"--retries", "2"}, "are for sweeps"},
		"bad parallel":   {[]string{"--sweep", "n=8", "--max-parallel", "-1"}, "--max-parallel -1"},
		"bad format":     {[]string{"--sweep", "n=8", "--format", "xml"}, "--format \"xml\""},
		"dry run alone":  {[]string{"--dry-run"}, "are for sweeps"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			root := newRootCmd()
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append([]string{"run"}, tc.args...))
			err := root.Execute()
			if code := exitCode(err); code != 2 {
				t.Errorf("exit %d (%v), want 2", code, err)
			}
			if err != nil {
				out.WriteString(err.Error())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, out.String())
			}
		})
	}
}

// TestSweepDryRun: --dry-run lists the product in order and runs nothing.
func TestSweepDryRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GRIDTUI_DATA_DIR", dir)
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetArgs([]string{"run", "--app", "poisson", "--sweep", "n=8:64:x2", "--sweep", "scheme=sync,async", "--dry-run", "--format", "csv"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 9 || lines[1] != "0,8,sync,not run,0,,,,,,," || !strings.HasPrefix(lines[8], "7,64,async,not run") {
		t.Errorf("dry run:\n%s", out.String())
	}
	if ids, _ := sweep.ListSweeps(dir); len(ids) != 0 {
		t.Errorf("a dry run left job logs %v", ids)
	}
}

// TestSweepJobFileError: a mistake in [sweep] is at its line and column.
func TestSweepJobFileError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.toml")
	if err := os.WriteFile(path, []byte("app = \"poisson\"\n[sweep]\nn = [8, 12]\nbloks = [\"2x1x1\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetArgs([]string{"run", "--job", path})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "sweep.toml:4:1: sweep: bloks is no parameter of app poisson (did you mean \"blocks\"?)") {
		t.Errorf("error %v", err)
	}
}

// sweepInstances is the local-grid test's size: 40 instances (about 12 s
// on two loaded cores), or the 100 with GRIDTUI_SWEEP_FULL=1
// (about 30 s, too long for CI under -race).
func sweepInstances() (ns string, epss string, total int) {
	if os.Getenv("GRIDTUI_SWEEP_FULL") != "" {
		return "6:10", "1e-8:2e-7:1e-8", 100
	}
	return "6:9", "1e-8:1e-7:1e-8", 40
}

// TestSweepLocalGrid runs a sweep of small Poisson instances (one node
// each) on the local grid, one of them failing once; cancels it when about
// half its instances have succeeded, as Ctrl-C does; resumes it, which runs
// only the rest; and checks the table.
func TestSweepLocalGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("starts workers")
	}
	dir := t.TempDir()
	t.Setenv("GRIDTUI_DATA_DIR", dir)
	marker := filepath.Join(dir, "failed-once")
	ns, epss, total := sweepInstances()
	args := []string{"run", "--app", "flakypoisson", "--param", "fail_n=7", "--param", "marker=" + marker,
		"--nodes", "1", "--sweep", "n=" + ns, "--sweep", "eps=" + epss, "--retries", "1", "--format", "csv"}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cancelAtHalf(ctx, cancel, dir, total)
	var out, errs bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("first session: %v, want interrupted\n%s", err, errs.String())
	}
	ids, _ := sweep.ListSweeps(dir)
	if len(ids) != 1 {
		t.Fatalf("sweeps %v", ids)
	}
	first := okInstances(t, dir, ids[0])
	if len(first) == 0 || len(first) == total {
		t.Fatalf("the interrupt left %d of %d instances done", len(first), total)
	}

	out.Reset()
	errs.Reset()
	root = newRootCmd()
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs([]string{"run", "--resume", ids[0], "--format", "csv"})
	if err := root.Execute(); err != nil {
		t.Fatalf("resume: %v\n%s", err, errs.String())
	}
	if n := strings.Count(errs.String(), "rerun "); n != total-len(first) {
		t.Errorf("resume reran %d instances, want %d\n%s", n, total-len(first), errs.String())
	}
	l, err := sweep.ReadLog(dir, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range l.Attempts {
		if first[a.Instance] && a.Outcome != sweep.OutcomeCancelled && a.Why != nil && strings.HasPrefix(*a.Why, "resumed") {
			t.Errorf("instance %d succeeded before the interrupt and ran again", a.Instance)
		}
	}
	checkSweepCSV(t, out.String(), total)
	var shown bytes.Buffer
	root = newRootCmd()
	root.SetOut(&shown)
	root.SetArgs([]string{"results", "sweep", ids[0][:len(ids[0])-3], "--format", "csv"})
	if err := root.Execute(); err != nil || shown.String() != out.String() {
		t.Errorf("results sweep (%v) differs from the resumed run's table:\n%s", err, shown.String())
	}
	var failed []sweep.Attempt
	for _, a := range l.Attempts {
		if a.Outcome == sweep.OutcomeFailed {
			failed = append(failed, a)
		}
	}
	if len(failed) != 1 || failed[0].Params["n"] != "7" || failed[0].Error == nil || !strings.Contains(*failed[0].Error, "fails once") {
		t.Errorf("failed attempts %+v, want one of n = 7", failed)
	} else if a := lastAttempt(l, failed[0].Instance); a.Outcome != sweep.OutcomeOK || a.Why == nil || !strings.HasPrefix(*a.Why, "retry 1 of 1: attempt 1 failed") {
		t.Errorf("the failed instance's last attempt: %+v", a)
	}
}

func lastAttempt(l *sweep.Log, instance int) sweep.Attempt {
	var last sweep.Attempt
	for _, a := range l.Attempts {
		if a.Instance == instance {
			last = a
		}
	}
	return last
}

// cancelAtHalf cancels the sweep once its job log holds half as many
// successful attempts as it has instances.
func cancelAtHalf(ctx context.Context, cancel func(), dir string, total int) {
	for ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		ids, _ := sweep.ListSweeps(dir)
		if len(ids) == 0 {
			continue
		}
		data, _ := os.ReadFile(sweep.LogPath(dir, ids[0]))
		if strings.Count(string(data), `"outcome":"ok"`) >= total/2 {
			cancel()
			return
		}
	}
}

func okInstances(t *testing.T, dir, id string) map[int]bool {
	t.Helper()
	l, err := sweep.ReadLog(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	ok := map[int]bool{}
	for _, a := range l.Attempts {
		if a.Outcome == sweep.OutcomeOK {
			ok[a.Instance] = true
		}
	}
	return ok
}

// checkSweepCSV: one row per instance in order (n slowest), each ok, with
// a residual below its ε and iterations that do not fall as ε does; the
// n = 7 instance that failed in two attempts; every run in the store.
func checkSweepCSV(t *testing.T, csv string, total int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != total+1 || !strings.HasPrefix(lines[0], "instance,n,eps,outcome,attempts,iterations,residual,") {
		t.Fatalf("csv has %d lines:\n%s", len(lines), csv)
	}
	nEps := total / 5
	if total == 40 {
		nEps = 10
	}
	prevIt := 0
	for i, line := range lines[1:] {
		c := strings.Split(line, ",")
		n, _ := strconv.Atoi(c[1])
		eps, _ := strconv.ParseFloat(c[2], 64)
		it, _ := strconv.Atoi(c[5])
		res, _ := strconv.ParseFloat(c[6], 64)
		if c[0] != strconv.Itoa(i) || n != 6+i/nEps || c[3] != "ok" || it < 1 || !(res > 0) || res > 20*eps {
			t.Errorf("row %d: %s", i, line)
		}
		if i%nEps > 0 && it > prevIt {
			t.Errorf("row %d: %d iterations for a larger ε than the row before (%d)", i, it, prevIt)
		}
		prevIt = it
	}
	recs, err := jobs.Load(os.Getenv("GRIDTUI_DATA_DIR"))
	if err != nil || len(recs.Records) < total+1 {
		t.Errorf("the store holds %v runs (%v), want at least %d", recs, err, total+1)
	}
}
