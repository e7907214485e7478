package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine"
)

// resumeArgs is the job of the resume test: a synchronous Poisson run on 4
// local workers, long enough to be killed mid-run, checkpointing often.
var resumeArgs = []string{"run", "--json", "--app", "poisson", "--n", "32", "--eps", "1e-10", "--scheme", "sync",
	"--nodes", "4", "--param", "blocks=4x1x1", "--checkpoint-every", "50"}

// gridtuiProc is the test binary run as gridtui with args, its data
// directory dataDir.
func gridtuiProc(t *testing.T, dataDir string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), asGridtui+"=1", "GRIDTUI_DATA_DIR="+dataDir, "GRIDTUI_SITES=")
	c.Dir = t.TempDir()
	return c
}

// event is a line of run --json.
type event struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// runResult is what the test compares of a report: every node's
// iterations and the sum of u.
type runResult struct {
	Outcome string `json:"outcome"`
	Nodes   []struct {
		Node       string `json:"node"`
		Iterations int    `json:"iterations"`
	} `json:"nodes"`
	Figures []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"figures"`
	Recoveries []struct {
		Node string `json:"node"`
		How  string `json:"how"`
		To   string `json:"to"`
		From uint64 `json:"from_iteration"`
	} `json:"recoveries"`
}

// moved counts the recoveries that moved or restored a part: not the
// attempts started again on the same nodes after a pre-flight met an
// endpoint being rebound (docs/FAILURES.md), which are bit for bit too.
func (r runResult) moved() int {
	n := 0
	for _, rc := range r.Recoveries {
		if rc.How != "same nodes again" {
			n++
		}
	}
	return n
}

func (r runResult) sumU() string {
	for _, f := range r.Figures {
		if f.Name == "sum of u" {
			return f.Text
		}
	}
	return ""
}

// reportOf reads run --json's report from out.
func reportOf(t *testing.T, out []byte) runResult {
	t.Helper()
	for _, l := range strings.Split(string(out), "\n") {
		var e event
		if json.Unmarshal([]byte(l), &e) == nil && e.Event == "report" {
			var r runResult
			if err := json.Unmarshal(e.Data, &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no report in:\n%s", out)
	return runResult{}
}

// exitCodeOf returns the exit code of a finished command (0: none).
func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// TestRunResumeAfterKill starts a headless run as a real process, kills it
// with SIGKILL mid-run, and resumes it: the resumed run is bit for bit the
// undisturbed one (every node's iterations, the sum of u), nothing of the
// killed run is left running, and a second resume, an unknown id and
// changed parameters are refused with exit code 2.
func TestRunResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dataDir := t.TempDir()
	out, err := gridtuiProc(t, dataDir, resumeArgs...).Output()
	if err != nil {
		t.Fatalf("undisturbed run: %v\n%s", err, out)
	}
	want := reportOf(t, out)

	id := killMidRun(t, dataDir)
	m, err := engine.LoadManifest(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := gridtuiProc(t, dataDir, "join", id, "beta-4").CombinedOutput(); exitCodeOf(err) != 1 || !strings.Contains(string(out), "is not running") {
		t.Errorf("join of the killed run: exit %d, want 1 and not running:\n%s", exitCodeOf(err), out)
	}
	if out, err := gridtuiProc(t, dataDir, "results", "--list").CombinedOutput(); err != nil || !strings.Contains(string(out), id) {
		t.Errorf("results --list (%v) does not list %s as resumable:\n%s", err, id, out)
	}
	changed := append([]string{"run", "--resume", id, "--n", "40"}, resumeArgs[1:2]...)
	if out, err := gridtuiProc(t, dataDir, changed...).CombinedOutput(); exitCodeOf(err) != 2 || !strings.Contains(string(out), "changed parameters") {
		t.Errorf("resume with --n 40: exit %d, want 2 and changed parameters:\n%s", exitCodeOf(err), out)
	}

	out, err = gridtuiProc(t, dataDir, "run", "--json", "--resume", id).Output()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	got := reportOf(t, out)
	if got.Outcome != "ok" || got.moved() != 1 || got.Recoveries[0].Node != "console" || got.Recoveries[0].From == 0 {
		t.Fatalf("resumed run: outcome %s, recoveries %+v", got.Outcome, got.Recoveries)
	}
	t.Logf("resumed from iteration %d", got.Recoveries[0].From)
	if got.sumU() != want.sumU() || got.sumU() == "" {
		t.Errorf("sum of u %q, undisturbed %q", got.sumU(), want.sumU())
	}
	for i := range want.Nodes {
		if got.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("%s: %d iterations, undisturbed %d", got.Nodes[i].Node, got.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
	for _, w := range m.Workers {
		if processAlive(w.PID) {
			t.Errorf("worker %d of %s, of the killed run, still exists", w.PID, w.Host)
		}
	}
	for _, args := range [][]string{{"run", "--resume", id}, {"run", "--resume", "20260101T000000Z-000000"}} {
		out, err := gridtuiProc(t, dataDir, args...).CombinedOutput()
		if exitCodeOf(err) != 2 || !strings.Contains(string(out), "cannot resume") {
			t.Errorf("%v: exit %d, want 2:\n%s", args, exitCodeOf(err), out)
		}
		t.Logf("%v: %s", args, strings.TrimSpace(string(out)))
	}
	if ms, _ := filepath.Glob(filepath.Join(dataDir, "checkpoints", "*", "*")); len(ms) > 0 {
		t.Errorf("checkpoints left after the resumed run ended well: %v", ms)
	}
}

// killMidRun starts the resume test's run and kills it with SIGKILL once
// every node is past a few checkpoints; it returns the run's id.
func killMidRun(t *testing.T, dataDir string) string {
	t.Helper()
	c := gridtuiProc(t, dataDir, resumeArgs...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	defer c.Process.Kill()
	id := ""
	done := make(chan struct{})
	go func() { // the kill comes from the stream's reader; a hang ends here
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			c.Process.Kill()
		}
	}()
	defer close(done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Event {
		case "log":
			var l struct{ Text string }
			json.Unmarshal(e.Data, &l)
			if rest, ok := strings.CutPrefix(l.Text, "run "); ok && strings.Contains(rest, "--resume") {
				id, _, _ = strings.Cut(rest, ":")
			}
		case "snapshot":
			var s struct {
				Nodes []struct{ Iteration int }
			}
			json.Unmarshal(e.Data, &s)
			past := len(s.Nodes) > 0
			for _, n := range s.Nodes {
				past = past && n.Iteration >= 160
			}
			if past && id != "" {
				c.Process.Signal(syscall.SIGKILL)
				io.Copy(io.Discard, stdout)
				return id
			}
		case "report":
			t.Fatal("the run ended before it was killed")
		}
	}
	t.Fatalf("the run's output ended before it was killed (id %q)", id)
	return ""
}

// processAlive reports whether process pid exists and is not a zombie (a
// dead process whose new parent, the machine's init, has not reaped it
// yet: its work is over).
func processAlive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(st, ')')
	return i < 0 || i+2 >= len(st) || st[i+2] != 'Z'
}
