package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestDrainCommand drains a node of a headless run (a real process) with
// gridtui drain RUN NODE: the run ends ok, bit for bit the undisturbed
// run, its part on another host; a drain of an unknown run is a usage
// error and one of a node outside the run is refused.
func TestDrainCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dataDir := t.TempDir()
	out, err := gridtuiProc(t, dataDir, resumeArgs...).Output()
	if err != nil {
		t.Fatalf("undisturbed run: %v\n%s", err, out)
	}
	want := reportOf(t, out)

	all, drained := runActing(t, dataDir, 120, func(id string) {
		if out, err := gridtuiProc(t, dataDir, "drain", id, "beta-4").CombinedOutput(); exitCodeOf(err) != 1 {
			t.Errorf("drain of beta-4, outside the run: exit %d, want 1:\n%s", exitCodeOf(err), out)
		}
		if out, err := gridtuiProc(t, dataDir, "drain", "20260101T000000Z-000000", "alpha-3").CombinedOutput(); exitCodeOf(err) != 2 {
			t.Errorf("drain of an unknown run: exit %d, want 2:\n%s", exitCodeOf(err), out)
		}
		if out, err := gridtuiProc(t, dataDir, "drain", id, "alpha-3", "--why", "a test").CombinedOutput(); err != nil {
			t.Fatalf("drain alpha-3: %v\n%s", err, out)
		}
	})
	got := reportOf(t, []byte(all))
	if !drained || got.Outcome != "ok" || got.moved() != 1 || got.Recoveries[0].Node != "alpha-3" {
		t.Fatalf("drained %v: outcome %s, recoveries %+v", drained, got.Outcome, got.Recoveries)
	}
	if got.sumU() != want.sumU() {
		t.Errorf("sum of u %q, undisturbed %q", got.sumU(), want.sumU())
	}
	for i := range want.Nodes {
		if got.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, got.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
	if got.Nodes[2].Node == "alpha-3" {
		t.Errorf("rank 2 still on alpha-3")
	}
}

// runActing starts a headless `gridtui run` (resumeArgs) in dataDir and,
// once every node of a snapshot is past iteration, calls act once with the
// run's id, while the run goes on. It returns the run's whole output, and
// whether act was called, once the run ended ok.
func runActing(t *testing.T, dataDir string, iteration int, act func(id string)) (out string, acted bool) {
	t.Helper()
	c := gridtuiProc(t, dataDir, resumeArgs...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	timer := time.AfterFunc(3*time.Minute, func() { c.Process.Kill() })
	defer timer.Stop()
	var all strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	id := ""
	for sc.Scan() {
		all.Write(sc.Bytes())
		all.WriteByte('\n')
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Event == "log" && id == "" {
			var l struct{ Text string }
			json.Unmarshal(e.Data, &l)
			if rest, ok := strings.CutPrefix(l.Text, "run "); ok && strings.Contains(rest, "--resume") {
				id, _, _ = strings.Cut(rest, ":")
			}
		}
		if e.Event != "snapshot" || id == "" || acted {
			continue
		}
		var s struct{ Nodes []struct{ Iteration int } }
		json.Unmarshal(e.Data, &s)
		past := len(s.Nodes) > 0
		for _, n := range s.Nodes {
			past = past && n.Iteration >= iteration
		}
		if past {
			acted = true
			act(id)
		}
	}
	io.Copy(io.Discard, stdout)
	if err := c.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, all.String())
	}
	return all.String(), acted
}
