package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/poisson" // registers poisson
	"github.com/gridtui/gridtui/jobs"
)

// localRefs are the local grid's eight hosts.
func localRefs() []jobs.NodeRef {
	var refs []jobs.NodeRef
	for _, c := range []string{"alpha", "beta"} {
		for i := 1; i <= 4; i++ {
			refs = append(refs, jobs.NodeRef{Name: fmt.Sprintf("%s-%d", c, i), Cluster: c, Site: "local"})
		}
	}
	return refs
}

// poissonSweep is a poisson job on one node with n swept over 100 values
// (eps fixed), or the values given.
func poissonSweep(t *testing.T, axes ...jobs.SweepAxis) jobs.Spec {
	t.Helper()
	spec := jobs.Spec{App: "poisson", Params: map[string]string{"eps": "1e-6"}, Nodes: jobs.NodeSelection{Any: 1}, Cores: 1}.WithDefaults()
	if len(axes) == 0 {
		var ns []string
		for n := 8; n < 108; n++ {
			ns = append(ns, strconv.Itoa(n))
		}
		axes = []jobs.SweepAxis{{Name: "n", Values: ns}}
	}
	spec.Sweep = &jobs.Sweep{Axes: axes}
	if err := spec.CheckSweep(); err != nil {
		t.Fatal(err)
	}
	return spec
}

// fakeGrid runs instances as a grid would, checking that no host runs two
// at once and counting what ran; the instance with failOnce's n fails on
// its first attempt.
type fakeGrid struct {
	t        *testing.T
	mu       sync.Mutex
	busy     map[string]bool
	ran      map[string]int // runs per n
	most     int            // the most instances at once
	failOnce string
	order    []string // instance names as they started
}

func newFakeGrid(t *testing.T, failOnce string) *fakeGrid {
	return &fakeGrid{t: t, busy: map[string]bool{}, ran: map[string]int{}, failOnce: failOnce}
}

func (g *fakeGrid) run(ctx context.Context, spec jobs.Spec) Result {
	n := spec.Params["n"]
	g.mu.Lock()
	for _, h := range spec.Nodes.Hosts {
		if g.busy[h] {
			g.t.Errorf("host %s runs two instances at once", h)
		}
		g.busy[h] = true
	}
	g.most = max(g.most, len(g.busy))
	g.ran[n]++
	g.order = append(g.order, spec.Name)
	first := g.ran[n] == 1
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		for _, h := range spec.Nodes.Hosts {
			delete(g.busy, h)
		}
		g.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return Result{Outcome: "aborted", Err: ctx.Err()}
	case <-time.After(time.Millisecond):
	}
	if n == g.failOnce && first {
		return Result{Outcome: "failed", Err: errors.New("engine: alpha-1: the marker says fail")}
	}
	it, _ := strconv.Atoi(n)
	it *= 10
	res := 1e-7
	return Result{Outcome: "ok", Iterations: &it, Residual: &res, RecordID: "rec-" + n}
}

func TestSweepRetryCancelResume(t *testing.T) {
	dir := t.TempDir()
	spec := poissonSweep(t)
	g := newFakeGrid(t, "20")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var oks int
	opt := Options{Hosts: localRefs(), Source: "embedded", Retries: 1, Dir: dir,
		OnAttempt: func(a Attempt) {
			if a.Outcome == OutcomeOK {
				if oks++; oks == 50 {
					cancel()
				}
			}
		}}
	sum, err := Start(ctx, spec, g.run, opt)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Start after cancel: %v, want ErrInterrupted", err)
	}
	if g.ran["20"] != 2 {
		t.Errorf("n=20 ran %d times, want 2 (one retry)", g.ran["20"])
	}
	if g.most > 8 || g.most < 2 {
		t.Errorf("at most %d at once, want 2…8", g.most)
	}
	if sum.OK < 50 || sum.OK+sum.NotRun != 100 || sum.Failed != 0 {
		t.Errorf("first session: %d ok, %d failed, %d not run", sum.OK, sum.Failed, sum.NotRun)
	}
	first := sum.OK
	before := map[string]int{}
	okBefore := map[string]bool{}
	for k, v := range g.ran {
		before[k] = v
	}
	for _, r := range sum.Rows {
		okBefore[r.Params["n"]] = r.Outcome == OutcomeOK
	}

	opt.OnAttempt = nil
	sum, err = Resume(context.Background(), sum.ID, g.run, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 100 || sum.Skipped != first || sum.Ran != 100-first || len(sum.Reruns) != 100-first {
		t.Errorf("resume: %d ok, %d skipped, %d ran, %d reruns; first session %d ok", sum.OK, sum.Skipped, sum.Ran, len(sum.Reruns), first)
	}
	for k, ok := range okBefore {
		if ok && g.ran[k] != before[k] {
			t.Errorf("n=%s succeeded before and ran again on resume", k)
		}
		if !ok && g.ran[k] != before[k]+1 {
			t.Errorf("n=%s did not succeed before and ran %d times on resume, want once", k, g.ran[k]-before[k])
		}
	}
	for _, r := range sum.Reruns {
		if !strings.HasPrefix(r.Why, "resumed: ") {
			t.Errorf("rerun %d: why %q", r.Instance, r.Why)
		}
	}
	checkTable(t, dir, sum.ID)
}

// checkTable reads the sweep's table from its job log: every instance ok
// with its own iterations, n=20 in two attempts.
func checkTable(t *testing.T, dir, id string) {
	t.Helper()
	l, err := ReadLog(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := TableOf(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 100 {
		t.Fatalf("%d rows, want 100", len(tab.Rows))
	}
	for i, r := range tab.Rows {
		n, _ := strconv.Atoi(r.Params["n"])
		if r.Instance != i || n != i+8 || r.Outcome != OutcomeOK || r.Iterations == nil || *r.Iterations != 10*n {
			t.Errorf("row %d: %+v", i, r)
		}
		if want := 1; n == 20 {
			if r.Attempts != 2 {
				t.Errorf("n=20: %d attempts, want 2", r.Attempts)
			}
		} else if r.Attempts < want {
			t.Errorf("n=%d: %d attempts", n, r.Attempts)
		}
	}
	var csv bytes.Buffer
	if err := tab.Write(&csv, FormatCSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 101 || !strings.HasPrefix(lines[0], "instance,n,outcome,attempts,iterations,residual") || !strings.HasPrefix(lines[13], "12,20,ok,2,200,1.000e-07") {
		t.Errorf("csv:\n%s\n%s", lines[0], lines[13])
	}
}

func TestSweepThrottle(t *testing.T) {
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: []string{"8", "9", "10", "11", "12", "13"}})
	g := newFakeGrid(t, "")
	sum, err := Start(context.Background(), spec, g.run, Options{Hosts: localRefs(), Source: "embedded", MaxParallel: 2, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if g.most > 2 || sum.OK != 6 {
		t.Errorf("%d at once (want ≤ 2), %d ok", g.most, sum.OK)
	}
}

func TestSweepRetriesExhausted(t *testing.T) {
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: []string{"8", "9"}})
	fail := func(ctx context.Context, s jobs.Spec) Result {
		if s.Params["n"] == "9" {
			return Result{Outcome: "failed", Err: errors.New("engine: beta-1 died")}
		}
		return Result{Outcome: "ok"}
	}
	sum, err := Start(context.Background(), spec, fail, Options{Hosts: localRefs(), Source: "embedded", Retries: 2, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 1 || sum.Failed != 1 || sum.Rows[1].Attempts != 3 || sum.Rows[1].Error == nil {
		t.Errorf("%d ok, %d failed, row %+v", sum.OK, sum.Failed, sum.Rows[1])
	}
}

func TestSweepMultiNode(t *testing.T) {
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: []string{"8", "9", "10"}}, jobs.SweepAxis{Name: "nodes", Values: []string{"1", "4", "8"}})
	g := newFakeGrid(t, "")
	sum, err := Start(context.Background(), spec, g.run, Options{Hosts: localRefs(), Source: "embedded", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 9 {
		t.Errorf("%d ok, want 9", sum.OK)
	}
	for _, r := range sum.Rows {
		if k, _ := strconv.Atoi(r.Params["nodes"]); len(r.Hosts) != k {
			t.Errorf("instance %d (%v) on %v", r.Instance, r.Params, r.Hosts)
		}
	}
}

func TestSweepTooMany(t *testing.T) {
	var vals []string
	for i := range 1000 {
		vals = append(vals, strconv.Itoa(i+8))
	}
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: vals[:100]}, jobs.SweepAxis{Name: "blocks", Values: []string{"auto"}}, jobs.SweepAxis{Name: "eps", Values: vals[:200]})
	_, err := Start(context.Background(), spec, newFakeGrid(t, "").run, Options{Hosts: localRefs(), Source: "embedded", Dir: t.TempDir()})
	if !errors.Is(err, jobs.ErrSweep) || !strings.Contains(err.Error(), "--max-instances") {
		t.Errorf("20000 instances: %v", err)
	}
}

// TestSweepNoStarvation: an 8-node instance queued behind one-node ones
// runs before the one-node instances queued after it.
func TestSweepNoStarvation(t *testing.T) {
	spec := poissonSweep(t, jobs.SweepAxis{Name: "nodes", Values: []string{"1", "1", "1", "8", "1", "1", "1", "1"}}, jobs.SweepAxis{Name: "n", Values: []string{"8", "9", "10"}})
	g := newFakeGrid(t, "")
	sum, err := Start(context.Background(), spec, g.run, Options{Hosts: localRefs(), Source: "embedded", Dir: t.TempDir()})
	if err != nil || sum.OK != 24 {
		t.Fatalf("%v, %+v", err, sum)
	}
	pos := map[string]int{}
	for i, name := range g.order {
		pos[name] = i
	}
	for big := 9; big < 12; big++ {
		for later := 12; later < 24; later++ {
			b, l := fmt.Sprintf("%s#%d", spec.Name, big), fmt.Sprintf("%s#%d", spec.Name, later)
			if pos[l] < pos[b] {
				t.Errorf("%s (1 node) started before %s (8 nodes, queued earlier): %v", l, b, g.order)
				return
			}
		}
	}
}

// TestResumeBusy: a sweep still running refuses a --resume of itself.
func TestResumeBusy(t *testing.T) {
	dir := t.TempDir()
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: []string{"8", "9"}})
	started, release := make(chan string, 2), make(chan struct{})
	slow := func(ctx context.Context, s jobs.Spec) Result {
		started <- s.Name
		<-release
		return Result{Outcome: "ok"}
	}
	done := make(chan error)
	go func() {
		_, err := Start(context.Background(), spec, slow, Options{Hosts: localRefs(), Source: "embedded", Dir: dir})
		done <- err
	}()
	<-started
	ids, err := ListSweeps(dir)
	if err != nil || len(ids) != 1 {
		t.Fatalf("sweeps %v, %v", ids, err)
	}
	_, err = Resume(context.Background(), ids[0], slow, Options{Hosts: localRefs(), Source: "embedded", Dir: dir})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("resume of a running sweep: %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sum, err := Resume(context.Background(), ids[0], slow, Options{Hosts: localRefs(), Source: "embedded", Dir: dir})
	if err != nil || sum.Ran != 0 || sum.Skipped != 2 {
		t.Errorf("resume of a finished sweep: %v, %+v", err, sum)
	}
}

// TestResumeAfterCrash: an instance the running file lists with no outcome
// in the job log (the console died while it ran) is rerun with that
// reason, and one never started with its own.
func TestResumeAfterCrash(t *testing.T) {
	dir := t.TempDir()
	spec := poissonSweep(t, jobs.SweepAxis{Name: "n", Values: []string{"8", "9", "10"}})
	var running []byte
	release := make(chan struct{})
	run := func(ctx context.Context, s jobs.Spec) Result {
		if s.Params["n"] == "9" {
			<-release
		}
		return Result{Outcome: "ok"}
	}
	var logPath string
	opt := Options{Hosts: localRefs(), Source: "embedded", Dir: dir, MaxParallel: 2,
		OnAttempt: func(a Attempt) {
			if a.Instance == 0 {
				ids, _ := ListSweeps(dir)
				logPath = LogPath(dir, ids[0])
				running, _ = os.ReadFile(runningPath(logPath)) // instance 1 runs
				close(release)
			}
		}}
	sum, err := Start(context.Background(), spec, run, opt)
	if err != nil || sum.OK != 3 {
		t.Fatalf("%v, %+v", err, sum)
	}
	// The console "died" after instance 0 ended: the log lacks 1 and 2.
	data, _ := os.ReadFile(logPath)
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.Contains(l, `"instance":1,`) && !strings.Contains(l, `"instance":2,`) {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(logPath, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runningPath(logPath), running, 0o644); err != nil {
		t.Fatal(err)
	}
	opt.OnAttempt = nil
	sum, err = Resume(context.Background(), sum.ID, func(context.Context, jobs.Spec) Result { return Result{Outcome: "ok"} }, opt)
	if err != nil || len(sum.Reruns) != 2 {
		t.Fatalf("%v, %+v", err, sum)
	}
	if w := sum.Reruns[0].Why; !strings.Contains(w, "attempt 1 started") || !strings.HasSuffix(w, "the console ended while it ran") {
		t.Errorf("instance 1: %q", w)
	}
	if w := sum.Reruns[1].Why; w != "resumed: never started before the sweep was interrupted" {
		t.Errorf("instance 2: %q", w)
	}
	if _, err := os.Stat(runningPath(logPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the running file stays after the sweep ended: %v", err)
	}
}
