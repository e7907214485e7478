package solve

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/poisson"
	"github.com/gridtui/gridtui/rmnp"
)

// graphRun solves an application on the neighbour graph its decomposition
// gives, one in-process worker per part over loopback rmnp, the lower rank
// of each pair dialling.
type graphRun struct {
	app      string
	params   map[string]string
	ranks    int
	cores    int
	scheme   Scheme
	detector Detector
	// asyncLink reports whether the link of ranks a < b is asynchronous
	// (hybrid).
	asyncLink func(a, b int) bool
	hooks     map[int]*solveHooks // by rank
	maxIter   int                 // iteration limit of every rank (0: none)
	// checkpoint, if set, is every rank's Subtask.Checkpoint; copies, by
	// rank, its Subtask.Copies.
	checkpoint *CheckpointPlan
	copies     []CopyStore
}

func (c graphRun) mode(a, b int) rmnp.Mode {
	if c.scheme == Asynchronous || c.scheme == Hybrid && c.asyncLink != nil && c.asyncLink(min(a, b), max(a, b)) {
		return rmnp.Async
	}
	return rmnp.Sync
}

func (c graphRun) run(t testing.TB) ([]SolveResult, gridapp.Task, gridapp.Values) {
	t.Helper()
	app, err := gridapp.Lookup(c.app)
	if err != nil {
		t.Fatal(err)
	}
	v, err := gridapp.Parse(app.Params(), c.params)
	if err != nil {
		t.Fatal(err)
	}
	task, err := app.Define(v, make([]gridapp.Node, c.ranks))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eps := chainRun{ranks: c.ranks}.listen(t, ctx)
	for a, ps := range task.Parts {
		for _, b := range ps.Neighbours {
			if a > b {
				continue
			}
			opts := rmnp.LinkOptions{Mode: c.mode(a, b), Network: "ethernet"}
			if err := eps[a].Connect(ctx, rmnp.PeerID(b+1), eps[b].Addrs()[0], opts); err != nil {
				t.Fatal(err)
			}
			if err := eps[b].WaitPeer(ctx, rmnp.PeerID(a+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := make([]SolveResult, c.ranks)
	errs := make([]error, c.ranks)
	parts := PartTasks(c.app, v, task)
	limit := c.maxIter // the job's limit and the application's, the smaller (as the submitter sets it)
	if m := task.MaxIter; m > 0 && (limit <= 0 || m < limit) {
		limit = m
	}
	var wg sync.WaitGroup
	for r := range c.ranks {
		st := Subtask{PartTask: parts[r], Cores: c.cores, Scheme: c.scheme, Detector: c.detector,
			MaxIter: limit, hooks: c.hooks[r], Checkpoint: c.checkpoint}
		if r < len(c.copies) {
			st.Copies = c.copies[r]
		}
		for _, q := range task.Parts[r].Neighbours {
			st.Neighbours = append(st.Neighbours, Neighbour{Rank: q, Peer: rmnp.PeerID(q + 1), Mode: c.mode(r, q)})
		}
		wg.Go(func() {
			res[r], errs[r] = Solve(ctx, eps[r], st, nil)
			if errs[r] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	var failed []string
	for r, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v", r, err))
		}
	}
	if failed != nil {
		t.Fatal(strings.Join(failed, "\n"))
	}
	return res, task, v
}

// TestPoissonBlocks runs the Poisson problem in blocks (up to six
// neighbours, a graph that is no chain) under every detector: synchronous
// runs equal the serial reference bit for bit after as many iterations, all
// ranks stopping together; asynchronous and hybrid runs end with a true
// residual below ε.
func TestPoissonBlocks(t *testing.T) {
	const n = 12
	cases := map[string]graphRun{
		"sync tokens 2x1x1":    {params: map[string]string{"blocks": "2x1x1"}, ranks: 2, cores: 1, scheme: Synchronous},
		"sync tokens 2x2x1":    {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 2, scheme: Synchronous},
		"sync tokens 2x2x2":    {params: map[string]string{"blocks": "2x2x2"}, ranks: 8, cores: 1, scheme: Synchronous},
		"sync switch 2x2x1":    {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 1, scheme: Synchronous, detector: DetectSwitch},
		"async activity 2x2x1": {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 1, scheme: Asynchronous},
		"async switch 2x2x1":   {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 2, scheme: Asynchronous, detector: DetectSwitch},
		"hybrid activity 2x2x1": {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 1, scheme: Hybrid,
			asyncLink: func(a, b int) bool { return a/2 != b/2 }},
		"hybrid switch 2x2x1": {params: map[string]string{"blocks": "2x2x1"}, ranks: 4, cores: 1, scheme: Hybrid, detector: DetectSwitch,
			asyncLink: func(a, b int) bool { return a/2 != b/2 }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.app = poisson.Name
			c.params["n"], c.params["eps"] = strconv.Itoa(n), "1e-8"
			res, task, v := c.run(t)
			results := make([][]float64, len(res))
			for r := range res {
				results[r] = res[r].Values
			}
			out, err := poisson.App{}.Assemble(v, task, results)
			if err != nil {
				t.Fatal(err)
			}
			if !(out.Residual < 1e-8) {
				t.Fatalf("true residual %g ≥ ε", out.Residual)
			}
			if c.scheme != Synchronous {
				return
			}
			k := res[0].Iterations
			for r := range res {
				if res[r].Iterations != k || !res[r].Converged {
					t.Fatalf("rank %d: %d iterations (converged %v), rank 0 %d", r, res[r].Iterations, res[r].Converged, k)
				}
			}
			serial, _, _ := poisson.SerialSolve(poisson.Problem{N: n, Eps: math.SmallestNonzeroFloat64, MaxIter: k})
			for i := range serial {
				if out.Solution[i] != serial[i] {
					t.Fatalf("after %d iterations value %d: %v, serial %v", k, i, out.Solution[i], serial[i])
				}
			}
			t.Logf("%d iterations (serial converges in %s)", k, fmt.Sprint(serialIters(n)))
		})
	}
}

func serialIters(n int) int {
	_, k, _ := poisson.SerialSolve(poisson.Problem{N: n, Eps: 1e-8})
	return k
}
