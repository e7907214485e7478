package engine

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversFreshAsync: an asynchronous run that loses a worker long
// before any checkpoint (the interval is past the run's end) restarts only
// the lost part, from the start (its record says so), on its replacement;
// the survivors resume where they stopped, their iteration counters never
// go back, and the detector is not fooled by the fresh part: the run ends
// ok with a true residual below a tight ε. Before, every part restarted
// from the start (the survivors' counters went back to 0).
func TestRunRecoversFreshAsync(t *testing.T) {
	spec := recoverySpec(jobs.Asynchronous, 24, "1e-9")
	spec.Resilience.CheckpointEvery = 100000
	rep, back, err := runWatched(t, spec, "beta-2", syscall.SIGKILL, 20)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkFresh(t, rep, "beta-2")
	if b := back(rep.Recoveries); len(b) > 0 {
		t.Errorf("survivors' iteration counters went back: %v", b)
	}
}

// TestRunRecoversFreshHybrid: a hybrid run that loses a worker before any
// checkpoint restarts the lost part from the start (and its survivors,
// which keep no state where they stopped and have no checkpoint either),
// and ends ok with a true residual below ε.
func TestRunRecoversFreshHybrid(t *testing.T) {
	spec := recoverySpec(jobs.Hybrid, 24, "1e-9")
	spec.Resilience.CheckpointEvery = 100000
	rep, _, err := runWatched(t, spec, "alpha-3", syscall.SIGKILL, 20)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkFresh(t, rep, "alpha-3")
}

// checkFresh checks that rep is ok with a true residual below ε, and that
// the loss of lost (and only of it, or of its group with it) was recovered
// with its part from the start.
func checkFresh(t *testing.T, rep *Report, lost string) {
	t.Helper()
	if rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, true residual %g (checked %v, ε %g), recoveries %+v", rep.Outcome, rep.Residual, rep.Checked, rep.Eps, rep.Recoveries)
	}
	i := slices.IndexFunc(rep.Recoveries, func(r jobs.Recovery) bool { return r.Node == lost })
	if i < 0 || !rep.Recoveries[i].FromStart || rep.Recoveries[i].From != 0 {
		t.Fatalf("recoveries %+v: want %s's part from the start", rep.Recoveries, lost)
	}
	for _, r := range rep.Recoveries {
		t.Log(r)
	}
}

// TestRunRecoversFreshSteps: a task of several time steps (heat, whose
// first step here takes seconds) under the asynchronous scheme loses a
// worker early in its first step, before any checkpoint: the lost part
// restarts from the start, in the first step with every other part, the
// survivors resume where they stopped, and the run ends ok with a true
// residual below ε, never "termination protocol violated".
func TestRunRecoversFreshSteps(t *testing.T) {
	spec := jobs.Spec{Name: "recover-heat", App: "heat", Params: map[string]string{"n": "32", "eps": "1e-9", "dt": "1", "steps": "3"},
		Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, MaxIter: 1 << 30, WallTime: 5 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 100000}}
	rep, back, err := runWatched(t, spec, "alpha-3", syscall.SIGKILL, 5)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkFresh(t, rep, "alpha-3")
	if b := back(rep.Recoveries); len(b) > 0 {
		t.Errorf("survivors' iteration counters went back: %v", b)
	}
}
