package solve

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/rmnp"
)

// chainRun describes one in-process run of Solve over real loopback rmnp.
type chainRun struct {
	p        obstacle.Problem
	ranks    int
	cores    int
	scheme   Scheme
	detector Detector
	// asyncLink reports whether the link between r and r+1 is asynchronous.
	asyncLink func(r int) bool
	hooks     map[int]*solveHooks
	period    time.Duration
	// app and params name another application than the obstacle problem p
	// (p.N still gives the chain's split in the Subtasks).
	app     string
	params  map[string]string
	maxIter int // Subtask.MaxIter
	// afterRun, if set, sees the endpoints once every rank's Solve returned.
	afterRun func(eps []*rmnp.Endpoint)
	// checkpoint, if set, is every rank's Subtask.Checkpoint.
	checkpoint *CheckpointPlan
}

var solveRun = [16]byte{'s', 'o', 'l', 'v', 'e'}

// endpoints starts one endpoint per rank on 127.0.0.1 and links the chain,
// the lower rank dialling.
func (c chainRun) endpoints(t testing.TB, ctx context.Context) []*rmnp.Endpoint {
	t.Helper()
	eps := c.listen(t, ctx)
	for r := 0; r+1 < c.ranks; r++ {
		opts := rmnp.LinkOptions{Mode: c.mode(r), Network: "ethernet"}
		if err := eps[r].Connect(ctx, rmnp.PeerID(r+2), eps[r+1].Addrs()[0], opts); err != nil {
			t.Fatal(err)
		}
		if err := eps[r+1].WaitPeer(ctx, rmnp.PeerID(r+1)); err != nil {
			t.Fatal(err)
		}
	}
	return eps
}

// listen starts one endpoint per rank on 127.0.0.1 (rank r is peer r+1).
func (c chainRun) listen(t testing.TB, ctx context.Context) []*rmnp.Endpoint {
	t.Helper()
	eps := make([]*rmnp.Endpoint, c.ranks)
	for r := range eps {
		cfg := rmnp.DefaultConfig()
		cfg.RunID = solveRun
		cfg.Secret = []byte("solve-test-secret-0123456789")
		cfg.Self = rmnp.PeerID(r + 1)
		cfg.Listen = []string{"tcp://127.0.0.1:0"}
		cfg.DialTimeout = time.Minute // the handshake may crawl on a loaded machine under -race
		e, err := rmnp.Listen(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		eps[r] = e
	}
	return eps
}

func (c chainRun) mode(r int) rmnp.Mode {
	switch {
	case c.scheme == Asynchronous, c.scheme == Hybrid && c.asyncLink != nil && c.asyncLink(r):
		return rmnp.Async
	}
	return rmnp.Sync
}

// run solves the problem on the chain and returns the results and ranges.
func (c chainRun) run(t testing.TB) ([]SolveResult, []gridapp.Range) {
	t.Helper()
	res, ranges, errs := c.runAll(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return res, ranges
}

// runAll solves the problem on the chain and returns every rank's result
// and error: when one rank fails, the others are stopped.
func (c chainRun) runAll(t testing.TB) ([]SolveResult, []gridapp.Range, []error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eps := c.endpoints(t, ctx)
	ranges, err := gridapp.Split(c.p.N, c.ranks)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]SolveResult, c.ranks)
	errs := make([]error, c.ranks)
	app, params := c.app, c.params
	if app == "" {
		app, params = "obstacle", obstacleParams(c.p)
	}
	tasks := definedTasks(t, app, params, c.ranks, c.cores)
	maxIter := c.maxIter
	if maxIter == 0 {
		maxIter = c.p.MaxIter
	}
	var wg sync.WaitGroup
	for r := range c.ranks {
		st := Subtask{PartTask: tasks[r], Cores: c.cores,
			Scheme: c.scheme, Detector: c.detector, SwitchPeriod: c.period, hooks: c.hooks[r],
			MaxIter: maxIter, Neighbours: c.chainNeighbours(r), Checkpoint: c.checkpoint}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[r], errs[r] = Solve(ctx, eps[r], st, nil)
			if errs[r] != nil {
				cancel() // let the others stop too
			}
		}()
	}
	wg.Wait()
	if c.afterRun != nil {
		c.afterRun(eps)
	}
	return res, ranges, errs
}

func assemble(t testing.TB, p obstacle.Problem, ranges []gridapp.Range, res []SolveResult) []float64 {
	t.Helper()
	vals := make([][]float64, len(res))
	for r := range res {
		vals[r] = res[r].Values
	}
	u, err := obstacle.Assemble(p, ranges, vals)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// serialAfter returns the serial iterate after k sweeps.
func serialAfter(p obstacle.Problem, k int) []float64 {
	u := obstacle.InitialGuess(p)
	next := make([]float64, len(u))
	for range k {
		obstacle.SerialSweep(p, u, next)
		u, next = next, u
	}
	return u
}

func TestSyncBitForBitWithSerial(t *testing.T) {
	for _, n := range []int{11, 12} {
		p := obstacle.Problem{N: n, Eps: 1e-7}
		_, serialIters, _ := obstacle.SerialSolve(p)
		for ranks := 1; ranks <= 4; ranks++ {
			for cores := 1; cores <= 2; cores++ {
				t.Run(fmt.Sprintf("n%d/b%d/a%d", n, ranks, cores), func(t *testing.T) {
					res, ranges := chainRun{p: p, ranks: ranks, cores: cores, scheme: Synchronous}.run(t)
					want := serialIters + 2*(ranks-1) // the token delay
					for r, rr := range res {
						if rr.Iterations != want || !rr.Converged {
							t.Fatalf("rank %d: %d iterations (converged %v), want %d (serial %d)",
								r, rr.Iterations, rr.Converged, want, serialIters)
						}
					}
					got, ref := assemble(t, p, ranges, res), serialAfter(p, want)
					for i := range ref {
						if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
							t.Fatalf("point %d: %v, serial %v", i, got[i], ref[i])
						}
					}
				})
			}
		}
	}
}

func TestSyncMaxIterations(t *testing.T) {
	p := obstacle.Problem{N: 10, Eps: 1e-12, MaxIter: 25}
	res, ranges := chainRun{p: p, ranks: 3, cores: 1, scheme: Synchronous}.run(t)
	for r, rr := range res {
		if rr.Iterations != 25 || rr.Converged {
			t.Fatalf("rank %d: %d iterations, converged %v; want 25, false", r, rr.Iterations, rr.Converged)
		}
	}
	got, ref := assemble(t, p, ranges, res), serialAfter(p, 25)
	for i := range ref {
		if got[i] != ref[i] {
			t.Fatalf("point %d: %v, serial %v", i, got[i], ref[i])
		}
	}
}

// maxDiff returns max |a − b|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// checkAsync solves c and checks the solution against the serial one.
func checkAsync(t *testing.T, c chainRun, serial []float64) {
	t.Helper()
	res, ranges := c.run(t)
	u := assemble(t, c.p, ranges, res)
	if d := maxDiff(u, serial); d > 1e-6 {
		t.Fatalf("max |u − serial| = %g > 1e-6 (iterations %v)", d, iterationsOf(res))
	}
	// No early termination: the gathered solution passes the global test up to
	// the ε-sized halo staleness the scheme allows.
	if r := obstacle.Residual(c.p, u); r > 2*c.p.Eps {
		t.Fatalf("true residual %g > 2ε (iterations %v)", r, iterationsOf(res))
	}
}

func iterationsOf(res []SolveResult) []int {
	out := make([]int, len(res))
	for i, r := range res {
		out[i] = r.Iterations
	}
	return out
}

func repeats(t *testing.T) int {
	if testing.Short() {
		return 2
	}
	return 20
}

func TestAsyncActivityTerminates(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	for ranks := 2; ranks <= 8; ranks++ {
		t.Run(fmt.Sprintf("b%d", ranks), func(t *testing.T) {
			for range repeats(t) {
				checkAsync(t, chainRun{p: p, ranks: ranks, cores: 1, scheme: Asynchronous}, serial)
			}
		})
	}
}

// delayUpper makes rank r sleep before every DATA send to its upper
// neighbour, so that the neighbour iterates on stale halos.
func delayUpper(r int, d time.Duration) map[int]*solveHooks {
	return map[int]*solveHooks{r: {beforeSend: func(to int) {
		if to == r+1 {
			time.Sleep(d)
		}
	}}}
}

func TestAsyncActivityDelayedLink(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	for _, ranks := range []int{2, 4} {
		t.Run(fmt.Sprintf("b%d", ranks), func(t *testing.T) {
			for range repeats(t) {
				checkAsync(t, chainRun{p: p, ranks: ranks, cores: 1, scheme: Asynchronous,
					hooks: delayUpper(ranks/2-1, 200*time.Microsecond)}, serial)
			}
		})
	}
}

func TestHybridActivityTerminates(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	for ranks := 2; ranks <= 8; ranks++ {
		// Two clusters, or three from six ranks on: the links crossing a cluster
		// boundary are asynchronous.
		clusters := 2 + ranks/6
		cross := func(r int) bool { return (r+1)*clusters/ranks != r*clusters/ranks }
		t.Run(fmt.Sprintf("b%d", ranks), func(t *testing.T) {
			for i := range repeats(t) {
				c := chainRun{p: p, ranks: ranks, cores: 1 + i%2, scheme: Hybrid, asyncLink: cross}
				if i%4 == 3 {
					c.hooks = delayUpper(0, 200*time.Microsecond)
				}
				checkAsync(t, c, serial)
			}
		})
	}
}

func TestAsyncSwitchTerminates(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	for ranks := 1; ranks <= 8; ranks++ {
		t.Run(fmt.Sprintf("b%d", ranks), func(t *testing.T) {
			for i := range repeats(t) {
				c := chainRun{p: p, ranks: ranks, cores: 1, scheme: Asynchronous,
					detector: DetectSwitch, period: 5 * time.Millisecond}
				if i%4 == 3 && ranks > 1 {
					c.hooks = delayUpper(0, 200*time.Microsecond)
				}
				checkAsync(t, c, serial)
			}
		})
	}
}

// TestSolveNeighbourDies closes one rank's endpoint in the middle of a run:
// its neighbour must notice and fail by itself, naming the rank (the worker
// runtime then cancels the others), instead of waiting forever.
func TestSolveNeighbourDies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scheme   Scheme
		detector Detector
	}{
		{"sync", Synchronous, DetectTokens},
		{"async activity", Asynchronous, DetectActivity},
		{"async switch", Asynchronous, DetectSwitch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := chainRun{p: obstacle.Problem{N: 48, Eps: 1e-300}, ranks: 3, cores: 1, scheme: tc.scheme, detector: tc.detector}
			eps := c.endpoints(t, ctx)
			tasks := definedTasks(t, "obstacle", obstacleParams(c.p), 3, 1)
			type done struct {
				rank int
				err  error
			}
			dones := make(chan done, 3)
			var reports sync.Map
			for r := range 2 {
				st := Subtask{PartTask: tasks[r], Cores: 1, Scheme: tc.scheme, Detector: tc.detector, Neighbours: c.chainNeighbours(r)}
				go func() {
					_, err := Solve(ctx, eps[r], st, func(s NodeStatus) { reports.Store(s.Rank, s) })
					dones <- done{r, err}
				}()
			}
			time.Sleep(200 * time.Millisecond)
			eps[2].Close() // rank 2 never ran Solve: its neighbour sees a dead link
			select {
			case d := <-dones:
				if d.rank != 1 || d.err == nil || ctx.Err() != nil {
					t.Fatalf("first to stop: rank %d with %v, want rank 1 with an error", d.rank, d.err)
				}
				t.Logf("rank 1: %v", d.err)
			case <-ctx.Done():
				t.Fatal("rank 1 hangs after its neighbour died")
			}
			cancel()
			if d := <-dones; d.err == nil {
				t.Fatalf("rank %d returned no error", d.rank)
			}
			v, ok := reports.Load(1)
			if st, _ := v.(NodeStatus); !ok || st.State != StateFailed || st.Err == "" {
				t.Fatalf("rank 1's last report: %+v", v)
			}
		})
	}
}

func TestHybridSwitchTerminates(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	for ranks := 2; ranks <= 8; ranks++ {
		clusters := 2 + ranks/6
		cross := func(r int) bool { return (r+1)*clusters/ranks != r*clusters/ranks }
		t.Run(fmt.Sprintf("b%d", ranks), func(t *testing.T) {
			for i := range repeats(t) {
				c := chainRun{p: p, ranks: ranks, cores: 1, scheme: Hybrid, asyncLink: cross,
					detector: DetectSwitch, period: 5 * time.Millisecond}
				if i%4 == 3 {
					c.hooks = delayUpper(0, 200*time.Microsecond)
				}
				checkAsync(t, c, serial)
			}
		})
	}
}

// TestSyncSwitchBitForBit: with only synchronous links the switch detector's
// rounds and sections are all synchronous iterations, so the result is the
// serial iterate after the same number of sweeps, bit for bit.
func TestSyncSwitchBitForBit(t *testing.T) {
	p := obstacle.Problem{N: 13, Eps: 1e-9}
	res, ranges := chainRun{p: p, ranks: 3, cores: 2, scheme: Synchronous, detector: DetectSwitch,
		period: 2 * time.Millisecond}.run(t)
	k := res[0].Iterations
	for r, rr := range res {
		if rr.Iterations != k || !rr.Converged {
			t.Fatalf("rank %d: %d iterations (converged %v), rank 0 did %d", r, rr.Iterations, rr.Converged, k)
		}
	}
	got, ref := assemble(t, p, ranges, res), serialAfter(p, k)
	for i := range ref {
		if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
			t.Fatalf("point %d: %v, serial %v after %d iterations", i, got[i], ref[i], k)
		}
	}
	if r := obstacle.Residual(p, got); r >= p.Eps {
		t.Fatalf("residual %g ≥ ε", r)
	}
}

// TestAsyncMaxIterations: a rank that reaches its iteration limit stops
// computing and the detectors still terminate the run, reporting it as not
// converged. (Under the activity graph the limit counts the sweeps on new
// halos: see TestAsyncSmallPartSlowNeighbour.)
func TestAsyncMaxIterations(t *testing.T) {
	for _, det := range []Detector{DetectActivity, DetectSwitch} {
		t.Run(string(det), func(t *testing.T) {
			p := obstacle.Problem{N: 16, Eps: 1e-300, MaxIter: 40}
			res, _ := chainRun{p: p, ranks: 3, cores: 1, scheme: Asynchronous, detector: det, period: time.Millisecond}.run(t)
			for r, rr := range res {
				if rr.counted > 40 || rr.Converged {
					t.Fatalf("rank %d: %d iterations, converged %v", r, rr.Iterations, rr.Converged)
				}
			}
		})
	}
}

func TestSolveRejectsBadSubtasks(t *testing.T) {
	params := obstacleParams(obstacle.Problem{N: 8, Eps: 1e-6})
	one, two := definedTasks(t, "obstacle", params, 1, 1)[0], definedTasks(t, "obstacle", params, 2, 1)[0]
	up := []Neighbour{{Rank: 1, Peer: 2}}
	out := two
	out.Rank = 2
	tests := map[string]Subtask{
		"unknown scheme":          {PartTask: one, Scheme: "eventual"},
		"missing upper neighbour": {PartTask: two, Scheme: Synchronous},
		"async link in sync run":  {PartTask: two, Scheme: Synchronous, Neighbours: []Neighbour{{Rank: 1, Peer: 2, Mode: rmnp.Async}}},
		"sync link in async run":  {PartTask: two, Scheme: Asynchronous, Neighbours: up},
		"tokens in async run":     {PartTask: one, Scheme: Asynchronous, Detector: DetectTokens},
		"rank out of range":       {PartTask: out, Scheme: Synchronous},
		"no threshold":            {PartTask: PartTask{App: "obstacle", Params: params, Ranks: 1}, Scheme: Synchronous},
	}
	for name, st := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Solve(context.Background(), nil, st, nil); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestAsyncActivityIdleWaitFlush reproduces the lost Inactivate of the
// 256-worker trials (issue 21): an inactive node whose wait slice ran out
// applied an acknowledgement that arrived just after, left the activity
// graph, and kept its Inactivate queued until a next message that never
// came; its parent, and so the root, waited forever with every node
// inactive. Here every wait slice is short and followed by a pause, so that
// most control messages arrive between a wait and the next.
func TestAsyncActivityIdleWaitFlush(t *testing.T) {
	p := obstacle.Problem{N: 16, Eps: 1e-10}
	serial, _, _ := obstacle.SerialSolve(p)
	const ranks = 4
	hooks := map[int]*solveHooks{}
	for r := range ranks {
		hooks[r] = &solveHooks{idleWait: time.Millisecond, afterIdleWait: func() { time.Sleep(3 * time.Millisecond) }}
	}
	for range max(repeats(t)/4, 2) {
		checkAsync(t, chainRun{p: p, ranks: ranks, cores: 1, scheme: Asynchronous, hooks: hooks}, serial)
	}
}

// TestTokenDelayIsHeightPlusDepth: a synchronous run under the convergence
// tokens stops exactly H + D sweeps after the serial loop would have, H
// being the spanning tree's height at its root and D its depth (the
// breadth-first tree of a chain: H = D = ranks − 1): +2, +4 and +6 sweeps
// for trees of depth 1, 2 and 3, as docs/APPLICATIONS.md states.
func TestTokenDelayIsHeightPlusDepth(t *testing.T) {
	p := obstacle.Problem{N: 12, Eps: 1e-7}
	_, serialIters, _ := obstacle.SerialSolve(p)
	for ranks, want := range map[int]int{2: 2, 3: 4, 4: 6} {
		graph := make([][]int, ranks)
		for r := range ranks - 1 {
			graph[r], graph[r+1] = append(graph[r], r+1), append(graph[r+1], r)
		}
		depth := newSpanningTree(graph, 0).maxDepth()
		if depth != ranks-1 || 2*depth != want {
			t.Fatalf("%d ranks: tree of depth %d", ranks, depth)
		}
		res, _ := chainRun{p: p, ranks: ranks, cores: 1, scheme: Synchronous}.run(t)
		for r, rr := range res {
			if got := rr.Iterations - serialIters; got != want {
				t.Errorf("%d ranks (tree of depth %d), rank %d: %d sweeps after the serial loop's %d, want %d (height plus depth)",
					ranks, depth, r, got, serialIters, want)
			}
		}
	}
}
