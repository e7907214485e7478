package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// The scale trials are opt-in: they start hundreds of worker processes and
// take minutes on a small machine. GRIDTUI_SCALE lists the trials, e.g.
//
//	GRIDTUI_SCALE=64,256,1024,kill1024,stop1024 go test -run TestScaleTrials -timeout 60m ./engine/
//
// A number N runs N one-core local workers in two clusters (for 1024, those
// of testdata/sites/local1024.toml) in async and sync iterations: the
// obstacle problem at n = 256, ε = 1 when N ≤ 256, beyond that (each
// obstacle node needs a plane, and n ≥ 1024 does not fit in memory here)
// the poisson application at n = 128, ε = 1e-3 in 3-D blocks;
// GRIDTUI_SCALE_APP=poisson or obstacle chooses for every N. syncN and
// asyncN run one scheme only, GRIDTUI_SCALE_REPEAT=R runs each R times.
// killN and stopN send SIGKILL or SIGSTOP to one worker of an async run on
// N workers and time its detection. GRIDTUI_SCALE_YIELD=0 keeps the members
// of a crowded run at their coordinators' priority.
func TestScaleTrials(t *testing.T) {
	list := os.Getenv("GRIDTUI_SCALE")
	if list == "" {
		t.Skip("opt-in: set GRIDTUI_SCALE (e.g. 64,256,1024,kill256,stop256)")
	}
	if os.Getenv("GRIDTUI_SCALE_YIELD") == "0" {
		worker.MembersYield = false // members keep the coordinators' priority
		defer func() { worker.MembersYield = true }()
	}
	for _, item := range strings.Split(list, ",") {
		t.Run(item, func(t *testing.T) {
			switch {
			case strings.HasPrefix(item, "kill"):
				scaleFailure(t, atoi(t, item[4:]), syscall.SIGKILL)
			case strings.HasPrefix(item, "stop"):
				scaleFailure(t, atoi(t, item[4:]), syscall.SIGSTOP)
			case strings.HasPrefix(item, "sync"):
				scaleRuns(t, atoi(t, item[4:]), jobs.Synchronous)
			case strings.HasPrefix(item, "async"):
				scaleRuns(t, atoi(t, item[5:]), jobs.Asynchronous)
			default:
				scaleRuns(t, atoi(t, item), jobs.Asynchronous, jobs.Synchronous)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 || n%2 != 0 {
		t.Fatalf("GRIDTUI_SCALE item %q: want an even worker count ≥ 2", s)
	}
	return n
}

// scaleInventory is a local grid of two clusters of n/2 one-core nodes,
// told apart by label (beyond 245 nodes the addresses cross an octet).
func scaleInventory(t *testing.T, n int) *inventory.Inventory {
	t.Helper()
	if n == 1024 {
		// Found beside this file: the trials run from a built test binary too.
		_, self, _, _ := runtime.Caller(0)
		return loadInventory(t, filepath.Join(filepath.Dir(self), "..", "testdata", "sites", "local1024.toml"))
	}
	path := filepath.Join(t.TempDir(), "sites.toml")
	toml := fmt.Sprintf(`locality = "label"
[[site]]
name = "local"
launcher = "local"
  [[site.cluster]]
  name = "alpha"
  nodes = %[1]d
  cores = 1
  ethernet_addr = "127.16.64.10"
  fast_addr = "127.18.64.10"
  [[site.cluster]]
  name = "beta"
  nodes = %[1]d
  cores = 1
  ethernet_addr = "127.20.34.20"
  fast_addr = "127.22.34.20"
`, n/2)
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return loadInventory(t, path)
}

// rssKiB reads a process's resident set (VmRSS) or peak (VmHWM) in KiB.
func rssKiB(pid int, field string) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			k, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return k
		}
	}
	return 0
}

// idleRSS returns the median and largest RSS of the workers, in MiB.
func idleRSS(ws []*deploy.Worker) (median, largest float64) {
	var r []int
	for _, w := range ws {
		r = append(r, rssKiB(w.Hello.PID, "VmRSS"))
	}
	slices.Sort(r)
	return float64(r[len(r)/2]) / 1024, float64(r[len(r)-1]) / 1024
}

// consoleMiB is this process's (the console's) resident set and Go heap in
// use, in MiB, after a collection.
func consoleMiB() (rss, heap float64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(rssKiB(os.Getpid(), "VmRSS")) / 1024, float64(ms.HeapInuse) / (1 << 20)
}

// scaleJob is the job of the trials on n workers with scheme, ε as given
// (0: the one of a job that converges at once).
func scaleJob(n int, scheme jobs.Scheme, eps float64) jobs.Spec {
	spec := jobs.Spec{Scheme: scheme, Nodes: jobs.NodeSelection{Any: n}, Cores: 1}
	app := os.Getenv("GRIDTUI_SCALE_APP")
	if app == "" {
		app = "obstacle"
		if n > 256 {
			app = "poisson"
		}
	}
	if app == "poisson" {
		if eps == 0 {
			eps = 1e-3
		}
		spec.App, spec.Params = "poisson", map[string]string{"n": "128", "eps": strconv.FormatFloat(eps, 'g', -1, 64), "blocks": "auto"}
		return spec
	}
	if eps == 0 {
		eps = 1
	}
	spec.App, spec.Params = "obstacle", map[string]string{"n": "256", "eps": strconv.FormatFloat(eps, 'g', -1, 64)}
	return spec
}

// scaleRuns runs the trials' job of each scheme on n workers (started for
// each run), GRIDTUI_SCALE_REPEAT times, logging the figures.
func scaleRuns(t *testing.T, n int, schemes ...jobs.Scheme) {
	inv := scaleInventory(t, n)
	repeat, _ := strconv.Atoi(os.Getenv("GRIDTUI_SCALE_REPEAT"))
	for k := 1; k <= max(repeat, 1); k++ {
		for _, scheme := range schemes {
			scaleRun(t, inv, n, scheme, k)
		}
	}
}

// scaleRun runs the trials' job once and logs its figures.
func scaleRun(t *testing.T, inv *inventory.Inventory, n int, scheme jobs.Scheme, k int) {
	// The job converges at once: an async run ends within seconds of
	// its start, a sync run after the iterations its tokens need (twice
	// the spanning tree's depth).
	wall := 3 * time.Minute
	if scheme == jobs.Synchronous {
		wall = 20 * time.Minute
	}
	spec := scaleJob(n, scheme, 0)
	spec.WallTime = wall
	var (
		mu       sync.Mutex
		started  time.Duration
		first    time.Duration
		med, top float64
		pids     []int
		last     Snapshot
	)
	t0 := time.Now()
	opt := RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir(),
		OnWorkers: func(ws []*deploy.Worker) {
			started = time.Since(t0)
			med, top = idleRSS(ws)
			for _, w := range ws {
				pids = append(pids, w.Hello.PID)
			}
		},
		OnSnapshot: func(s Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			last = s
			for _, st := range s.Nodes {
				if st.Iteration > 0 && first == 0 {
					first = time.Since(t0)
				}
			}
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	rep, err := Run(ctx, spec, opt)
	cancel()
	total := time.Since(t0)
	if err != nil {
		mu.Lock()
		states := map[solve.NodeState]int{}
		for _, st := range last.Nodes {
			states[st.State]++
		}
		mu.Unlock()
		assertGone(t, pids)
		t.Errorf("SCALE run=%d app=%s workers=%d scheme=%s FAILED after %v: %v (last snapshot: %v)",
			k, spec.App, n, scheme, total.Round(time.Millisecond), err, states)
		return
	}
	rss, heap := consoleMiB()
	its := 0
	for _, nd := range rep.Nodes {
		its = max(its, nd.Iterations)
	}
	mu.Lock()
	// The gathered solution (n³ float64) is the console's largest
	// allocation and does not depend on the worker count: shown apart.
	sol := float64(8*len(rep.Solution)) / (1 << 20)
	t.Logf("SCALE run=%d app=%s workers=%d scheme=%s start=%v first-iteration=%v report=%v iterations=%d idle-rss-median=%.1fMiB idle-rss-max=%.1fMiB console-rss=%.0fMiB console-heap=%.1fMiB (solution %.0fMiB) outcome=%s",
		k, spec.App, n, scheme, started.Round(time.Millisecond), first.Round(time.Millisecond), total.Round(time.Millisecond), its, med, top, rss, heap, sol, rep.Outcome)
	mu.Unlock()
	assertGone(t, pids)
}

// scaleFailure runs a long async job on n workers, sends sig to one worker
// (not a coordinator) once every node iterates, and checks that the run
// names it within the bound and leaves nothing running.
func scaleFailure(t *testing.T, n int, sig syscall.Signal) {
	inv := scaleInventory(t, n)
	victim := fmt.Sprintf("alpha-%d", n/4+2) // inside a group, not its first
	spec := scaleJob(n, jobs.Asynchronous, 1e-14)
	spec.MaxIter, spec.WallTime = 1<<30, 20*time.Minute
	spec.Resilience.CheckpointEvery = -1 // the loss, not its recovery
	opt := RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()}
	f := faultAt(&opt, victim, sig, 3, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, opt)
	returned := time.Now()
	if falseFailure := f.falseFailure(victim); falseFailure != "" || rep == nil || rep.FailedNode != victim {
		t.Fatalf("want %s named; first failure %q, run error %v", victim, falseFailure, err)
	}
	limit := detectLimit
	if sig == syscall.SIGSTOP {
		// The hard bound: a watcher starved enough to excuse its peers
		// still names a silent one after excuseLimit × HeartbeatTimeout,
		// and the console hears it once the watcher's report has come up
		// (1.5 s after the watcher's verdict at most, measured among 1024
		// workers on 2 cores).
		limit = worker.ExcuseLimit*worker.HeartbeatTimeout + 2*time.Second
	}
	signaled, _ := f.times()
	lag := f.lag()
	if signaled.IsZero() || lag > limit {
		t.Errorf("%v of %s detected after %v, want at most %v", sig, victim, lag, limit)
	}
	// A killed process on a crowded host may end after the run's report
	// (which waits for it at most stopTimeout): it is sent SIGKILL, so
	// it cannot but end; waited for here before nothing is checked left.
	waitPIDsGone(f.allPIDs(), time.Minute)
	mainGone, allGone := f.deathLags()
	t.Logf("SCALE workers=%d signal=%v detected-after=%v main-thread-gone-after=%v all-threads-gone-after=%v report-after=%v cause=%q",
		n, sig, lag.Round(time.Millisecond), mainGone.Round(time.Millisecond), allGone.Round(time.Millisecond),
		returned.Sub(signaled).Round(time.Millisecond), rep.Cause)
	assertGone(t, f.allPIDs())
}

// waitPIDsGone waits until none of pids exists, at most d.
func waitPIDsGone(pids []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
