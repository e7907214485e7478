package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/poisson" // the recovered application
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// recoverySpec is a Poisson job on the local grid's 8 nodes that
// checkpoints every 25 iterations.
func recoverySpec(scheme jobs.Scheme, n int, eps string) jobs.Spec {
	return jobs.Spec{Name: "recover", App: "poisson", Params: map[string]string{"n": strconv.Itoa(n), "eps": eps},
		Scheme: scheme, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, MaxIter: 1 << 30, WallTime: 3 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 25}}
}

func figure(rep *Report, name string) string {
	for _, f := range rep.Figures {
		if f.Name == name {
			return f.Text
		}
	}
	return ""
}

// runKilled runs spec on the local grid and SIGKILLs node's worker once
// every node did after iterations.
func runKilled(t *testing.T, spec jobs.Spec, node string, after int) (*Report, *fault, error) {
	t.Helper()
	return runSignalled(t, spec, node, syscall.SIGKILL, after)
}

// runSignalled is runKilled with signal sig.
func runSignalled(t *testing.T, spec jobs.Spec, node string, sig syscall.Signal, after int) (*Report, *fault, error) {
	t.Helper()
	return runSignalledWith(t, spec, node, sig, after, nil)
}

// runSignalledWith is runSignalled with the run's options changed by with.
func runSignalledWith(t *testing.T, spec jobs.Spec, node string, sig syscall.Signal, after int, with func(*RunOptions)) (*Report, *fault, error) {
	t.Helper()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	if with != nil {
		with(&opt)
	}
	var f *fault
	if node != "" {
		f = faultAt(&opt, node, sig, after, nil)
	}
	rep, err := Run(context.Background(), spec, opt)
	return rep, f, err
}

// TestRunRecoversSync: a synchronous run whose worker is killed mid-run
// ends ok, bit for bit the undisturbed run (every node's iterations, the
// sum of u), and its report and record say the loss, where the part went
// and from which iteration.
func TestRunRecoversSync(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := runKilled(t, spec, "alpha-3", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-3")
}

func checkRecovered(t *testing.T, rep, want *Report, lost string) {
	t.Helper()
	checkRecoveredFrom(t, rep, want, lost, false)
}

// checkRecoveredFrom is checkRecovered; with early, the loss may have come
// before the first checkpoint and the run restarted from the start.
func checkRecoveredFrom(t *testing.T, rep, want *Report, lost string, early bool) {
	t.Helper()
	// A link to a worker that was being replaced can fail the next
	// attempt's pre-flight; it then starts again on the same nodes (a
	// second record, "same nodes again"), still bit for bit. A lost
	// coordinator's members move with it (records of their own, "its
	// coordinator … was lost").
	moves := moved(rep.Recoveries)
	for _, r := range rep.Recoveries {
		if r.Cause == "its coordinator "+lost+" was lost" {
			moves--
		}
	}
	if rep.Outcome != "ok" || moves != 1 || rep.Recoveries[0].Node != lost {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s (%s): rank %d to %s (%s) from iteration %d, recovered in %v", rc.Node, rc.Cause, rc.Rank, rc.To, rc.How, rc.From, rc.Took)
	if last := rep.Recoveries[len(rep.Recoveries)-1]; rc.From == 0 && !early || last.Took <= 0 {
		t.Errorf("recovery %+v: want the iteration rolled back to and the time it took", rc)
	}
	if (rc.From == 0) != rc.FromStart {
		t.Errorf("recovery %+v: a synchronous run rolls back to an iteration or starts again from the start", rc)
	}
	checkSameFigures(t, rep, want) // poisson's sum of u among them
	for i := range rep.Nodes {
		if rep.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
	if !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Errorf("true residual %g (checked %v), want below ε = %g", rep.Residual, rep.Checked, rep.Eps)
	}
}

// TestRunRecoversAsync: an asynchronous run whose worker is killed mid-run
// ends ok with a true residual below ε (never an early termination).
func TestRunRecoversAsync(t *testing.T) {
	spec := recoverySpec(jobs.Asynchronous, 24, "1e-7")
	rep, _, err := runKilled(t, spec, "beta-2", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
}

// TestRunNoCheckpoints: with checkpoints off a lost worker fails the run as
// before, and the report says why it was not recovered.
func TestRunNoCheckpoints(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	spec.Resilience.CheckpointEvery = -1
	rep, _, err := runKilled(t, spec, "alpha-2", 40)
	if err == nil || rep.Outcome != "failed" || len(rep.Recoveries) != 0 {
		t.Fatalf("error %v, report %s", err, summary(rep))
	}
	t.Log(rep.Cause)
}

// TestRunRecoversRepeatedly is the opt-in long test
// (GRIDTUI_RECOVERY_RUNS=20): a random worker (coordinators included)
// killed mid-run, every time ok with a true residual below ε; sync bit for
// bit the undisturbed run (every node's iterations, every figure, the
// whole solution); async survivors' iteration counters never go back. GRIDTUI_RECOVERY_SIGNAL=STOP stops the worker instead
// (recovered once its silence is judged); GRIDTUI_RECOVERY_APP=obstacle
// or heat runs that application (repeatedProblem) instead of poisson.
// GRIDTUI_RECOVERY_FIRST=200ms takes the first checkpoint that far into
// the run (RunOptions.FirstCheckpoint) rather than the default 5 s, so
// that the kills, which come in the first half of these runs, meet
// checkpoints to restore rather than restart from the start.
func TestRunRecoversRepeatedly(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("GRIDTUI_RECOVERY_RUNS"))
	if runs == 0 {
		t.Skip("set GRIDTUI_RECOVERY_RUNS=20 to run")
	}
	sig := syscall.SIGKILL
	if os.Getenv("GRIDTUI_RECOVERY_SIGNAL") == "STOP" {
		sig = syscall.SIGSTOP
	}
	app := cmp.Or(os.Getenv("GRIDTUI_RECOVERY_APP"), "poisson")
	params, ok := repeatedProblem[app]
	if !ok {
		t.Fatalf("GRIDTUI_RECOVERY_APP=%s: want poisson, obstacle or heat", app)
	}
	nodes := []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1", "beta-2", "beta-3", "beta-4"}
	for _, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid} {
		// GRIDTUI_RECOVERY_SCHEMES=async (a comma-separated list) runs those.
		if only := os.Getenv("GRIDTUI_RECOVERY_SCHEMES"); only != "" && !slices.Contains(strings.Split(only, ","), string(scheme)) {
			continue
		}
		spec := recoverySpec(scheme, 0, "")
		spec.Name, spec.App, spec.Params = "recover-"+app, app, maps.Clone(params)
		spec.Resilience.CheckpointEvery = 0 // the default interval
		spec.WallTime = 20 * time.Minute
		if scheme == jobs.Synchronous {
			// The whole solution, to compare bit for bit.
			spec.Output = jobs.Output{Dir: t.TempDir(), Raw: true}
		}
		want, _, err := runKilled(t, spec, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s undisturbed: %d iterations in %v", app, scheme, want.Nodes[0].Iterations, want.Wall)
		ok, missed := 0, 0
		for i := range runs {
			node := nodes[rand.IntN(len(nodes))]
			after := 100 + rand.IntN(max(want.Nodes[0].Iterations/2, 1))
			t.Run(fmt.Sprintf("%s/%s/%d/%s@%d", app, scheme, i, node, after), func(t *testing.T) {
				t.Cleanup(func() {
					if t.Skipped() {
						missed++
					}
				})
				if scheme == jobs.Synchronous {
					spec.Output.Dir = t.TempDir()
				}
				rep, back, err := runWatched(t, spec, node, sig, after)
				if err != nil {
					t.Fatalf("%v\n%s", err, summary(rep))
				}
				if scheme == jobs.Synchronous {
					// A loss before the first checkpoint (FirstCheckpointAfter
					// into the run) restarts every part from the start.
					checkRecoveredFrom(t, rep, want, node, true)
					checkSameOutputs(t, rep, want)
				} else {
					if rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < rep.Eps) {
						t.Fatalf("outcome %q, true residual %g (checked %v)", rep.Outcome, rep.Residual, rep.Checked)
					}
					// Hybrid: the lost part's cluster rolls back (Recovery.Cluster),
					// the other clusters' parts resume where they stopped; in a
					// task of several steps (heat) every part from its newest
					// checkpoint (stepPoint).
					if b := back(withClusters(rep.Recoveries)); (scheme == jobs.Asynchronous || app != "heat") && len(b) > 0 {
						t.Errorf("survivors' iteration counters went back: %v", b)
					}
					for _, r := range rep.Recoveries {
						t.Log(r)
					}
				}
				if !t.Failed() {
					ok++
				}
			})
		}
		t.Logf("%s %s: %d of %d recovered (%d missed: the fault came after the parts were done)", app, scheme, ok, runs-missed, missed)
	}
}

// withClusters is rs with a recovery for each rank of a hybrid cluster
// that rolled back with a lost part (Recovery.Cluster): counterWatch.back
// then names only the parts that should have kept where they stopped.
func withClusters(rs []jobs.Recovery) []jobs.Recovery {
	out := slices.Clone(rs)
	for _, rc := range rs {
		for _, r := range rc.Cluster {
			out = append(out, jobs.Recovery{Rank: r})
		}
	}
	return out
}

// repeatedProblem is the problem TestRunRecoversRepeatedly solves per
// application: n = 64 and ε = 1e-9 for each (heat: its default time steps).
var repeatedProblem = map[string]map[string]string{
	"poisson":  {"n": "64", "eps": "1e-9"},
	"obstacle": {"n": "64", "eps": "1e-9"},
	"heat":     {"n": "64", "eps": "1e-9"},
}

// runWatched is runSignalled that also watches the survivors' iteration
// counters in the telemetry: back lists, once the run is over, each time a
// part that was not moved (no recovery names its rank) went back.
func runWatched(t *testing.T, spec jobs.Spec, node string, sig syscall.Signal, after int) (*Report, func([]jobs.Recovery) []string, error) {
	t.Helper()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	if v := os.Getenv("GRIDTUI_RECOVERY_FIRST"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("GRIDTUI_RECOVERY_FIRST=%s: %v", v, err)
		}
		opt.FirstCheckpoint = d
	}
	f := faultAt(&opt, node, sig, after, nil)
	w := newCounterWatch()
	inject := opt.OnSnapshot
	opt.OnSnapshot = func(s Snapshot) {
		inject(s)
		w.see(s)
	}
	rep, err := Run(context.Background(), spec, opt)
	if err == nil && rep.Outcome == "ok" && len(rep.Recoveries) == 0 {
		// Not a recovery to judge: the fault came when the run no longer
		// needed the node (the telemetry that triggers it lags the
		// iterations), or never came.
		f.mu.Lock()
		at := f.signaled
		f.mu.Unlock()
		if at.IsZero() {
			t.Skipf("missed: no snapshot had every node past iteration %d before the run ended", after)
		}
		t.Skipf("missed: %v reached %s %v before the run ended, which needed no recovery (its parts were done)", sig, node, time.Since(at).Round(time.Millisecond))
	}
	return rep, w.back, err
}

// TestRunRecoversCoordinator: a hybrid run whose coordinator is killed
// mid-run ends ok with a true residual below ε.
func TestRunRecoversCoordinator(t *testing.T) {
	spec := recoverySpec(jobs.Hybrid, 24, "1e-7")
	rep, _, err := runKilled(t, spec, "alpha-1", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	// Its group's workers end with their coordinator: all move.
	if rep.Outcome != "ok" || len(rep.Recoveries) != 4 || rep.Recoveries[0].Node != "alpha-1" || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
	for _, r := range rep.Recoveries {
		t.Log(r)
	}
}

// TestRunRecoversOnSpare: a job of 7 nodes with one spare moves the lost
// node's part to the spare, bit for bit.
//
// Under load it used to fail now and then on a survivor made coordinator
// in the next attempt that lost that role (engine/worker endRun; fixed,
// docs/FAILURES.md, Known bugs): 20 of 20 since.
func TestRunRecoversOnSpare(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 21, "1e-7")
	spec.Nodes.Any = 7
	spec.Params["blocks"] = "7x1x1"
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	spec.Resilience.Spares = 1
	rep, _, err := runKilled(t, spec, "alpha-2", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-2")
	if rc := rep.Recoveries[0]; rc.How != "spare" || rc.To != "beta-4" {
		t.Errorf("part moved to %s (%s), want the spare beta-4", rc.To, rc.How)
	}
}

// TestRunAppWithoutCheckpoints: an application whose parts take no
// checkpoints still runs; a lost worker fails its run, and the report
// says the application has no checkpoints.
func TestRunAppWithoutCheckpoints(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 0, "")
	spec.App, spec.Params = "test-rod", map[string]string{"n": "4000", "eps": "1e-13"}
	rep, _, err := runKilled(t, spec, "beta-3", 60)
	if err == nil || rep.Outcome != "failed" || !strings.Contains(rep.Cause, "test-rod has no checkpoints") ||
		!strings.Contains(err.Error(), "has no checkpoints") {
		t.Fatalf("error %v, report %s", err, summary(rep))
	}
}

// TestRunRecoversStopped: a worker stopped (SIGSTOP) mid-run is judged
// lost by the heartbeats, killed and replaced; the synchronous run is bit
// for bit the undisturbed one.
func TestRunRecoversStopped(t *testing.T) {
	checkRecoversStopped(t, 0)
}

// checkRecoversStopped stops beta-3 (SIGSTOP) after iteration 60 of a
// synchronous run, its kill held back by linger (lostLinger), and checks
// that the run recovered it once, bit for bit the undisturbed one.
func checkRecoversStopped(t *testing.T, linger time.Duration) {
	t.Helper()
	spec := recoverySpec(jobs.Synchronous, 28, "1e-8")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	lostLinger = linger
	defer func() { lostLinger = 0 }()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	faultAt(&opt, "beta-3", syscall.SIGSTOP, 60, nil)
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "beta-3")
}

// TestRunRecoversOtherApps: obstacle (sync, bit for bit) and heat (sync,
// several time steps, bit for bit) survive a killed worker.
func TestRunRecoversOtherApps(t *testing.T) {
	for name, spec := range map[string]jobs.Spec{
		"obstacle": {Name: "recover-obstacle", App: "obstacle", Params: map[string]string{"n": "40", "eps": "1e-9"}},
		"heat":     {Name: "recover-heat", App: "heat", Params: map[string]string{"n": "48", "steps": "6", "dt": "1e-3", "eps": "1e-10"}},
	} {
		t.Run(name, func(t *testing.T) {
			spec.Scheme, spec.Nodes, spec.Cores, spec.MaxIter, spec.WallTime = jobs.Synchronous, jobs.NodeSelection{Any: 8}, 1, 1<<30, 3*time.Minute
			spec.Resilience = jobs.Resilience{CheckpointEvery: 25}
			want, _, err := runKilled(t, spec, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := runKilled(t, spec, "alpha-4", 60)
			if err != nil {
				t.Fatalf("%v\n%s", err, summary(rep))
			}
			if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 {
				t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
			}
			t.Log(rep.Recoveries[0])
			for i := range rep.Nodes {
				if rep.Nodes[i].Iterations != want.Nodes[i].Iterations {
					t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.Nodes[i].Iterations)
				}
			}
			if rep.Residual != want.Residual || len(rep.Figures) != len(want.Figures) {
				t.Errorf("true residual %g, undisturbed %g", rep.Residual, want.Residual)
			}
			for i := range rep.Figures {
				if rep.Figures[i].Value != want.Figures[i].Value {
					t.Errorf("%s: %v, undisturbed %v", rep.Figures[i].Name, rep.Figures[i].Value, want.Figures[i].Value)
				}
			}
		})
	}
}

// moved counts the recoveries that moved a part: an attempt started again
// on the same nodes after a link's failure on a sound node (a late end of
// the attempt before) is one too, but no loss.
func moved(rs []jobs.Recovery) int {
	n := 0
	for _, r := range rs {
		if r.How != "same nodes again" {
			n++
		}
	}
	return n
}

// TestRunRecoversDefaultInterval: with the default interval (each part
// takes its first checkpoint RunOptions.FirstCheckpoint into the run, 5 s
// by default, times it and chooses its own interval), a synchronous run
// killed before its first checkpoint restarts from the start, and one
// killed past it (the first brought forward to the base, 200) rolls back
// to an iteration every rank holds; both end bit for bit the undisturbed
// run. An asynchronous one ends ok.
func TestRunRecoversDefaultInterval(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-11") // ≈ 2000 iterations: a kill at 300 lands mid-run
	spec.Resilience.CheckpointEvery = 0
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if it := want.Nodes[0].Iterations; it < 1000 {
		t.Fatalf("the undisturbed run took %d iterations: too few to kill it past the first checkpoint", it)
	}
	late := func(opt *RunOptions) { opt.FirstCheckpoint = time.Hour }
	rep, _, err := runSignalledWith(t, spec, "beta-3", syscall.SIGKILL, 300, late)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecoveredFrom(t, rep, want, "beta-3", true)
	if rc := rep.Recoveries[0]; rc.From != 0 || !rc.FromStart || !strings.Contains(rc.String(), "from the start") {
		t.Errorf("killed at 300: %s; want every part from the start (no checkpoint before the first's time)", rc)
	}
	early := func(opt *RunOptions) { opt.FirstCheckpoint = time.Nanosecond } // the first at the base
	rep, _, err = runSignalledWith(t, spec, "beta-3", syscall.SIGKILL, 300, early)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "beta-3")
	spec.Scheme = jobs.Asynchronous
	rep, _, err = runSignalledWith(t, spec, "alpha-2", syscall.SIGKILL, 300, early)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || !(rep.Residual < rep.Eps) {
		t.Fatalf("async: outcome %q, recoveries %+v, true residual %g (ε %g)", rep.Outcome, rep.Recoveries, rep.Residual, rep.Eps)
	}
}
