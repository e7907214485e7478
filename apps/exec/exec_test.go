package exec_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/poisson"
	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// poissonParams are the exec parameters of examples/c-poisson for n.
func poissonParams(prog string, n int) map[string]string {
	return map[string]string{"program": prog, "args": strconv.Itoa(n), "items": strconv.Itoa(n),
		"unit": strconv.Itoa(n * n), "eps": "1e-8"}
}

// sameBits fails unless got and want are equal bit for bit.
func sameBits(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("value %d: %v, serial %v", i, got[i], want[i])
		}
	}
}

// TestLocalCPoisson runs the C example through gridapp.RunLocal (the
// synchronous semantics in one process, no network): the iterations and
// every value are the serial reference's.
func TestLocalCPoisson(t *testing.T) {
	prog := cPoisson(t)
	app, _ := gridapp.Lookup("exec")
	p := poisson.Problem{N: 16, Eps: 1e-8}
	want, iters, _ := poisson.SerialSolve(p)
	for _, nodes := range []int{1, 3} {
		t.Run(strconv.Itoa(nodes), func(t *testing.T) {
			v, err := gridapp.Parse(app.Params(), poissonParams(prog, p.N))
			if err != nil {
				t.Fatal(err)
			}
			run, err := gridapp.RunLocal(app, v, make([]gridapp.Node, nodes))
			if err != nil {
				t.Fatal(err)
			}
			if run.Iterations != iters || !run.Converged {
				t.Fatalf("%d iterations (converged %v), serial %d", run.Iterations, run.Converged, iters)
			}
			sameBits(t, run.Result.Solution, want)
		})
	}
}

// runExec runs the exec application on the local grid and returns the
// report, the error and the PIDs of the workers.
func runExec(t *testing.T, scheme jobs.Scheme, nodes int, params map[string]string) (*engine.Report, error, []int) {
	t.Helper()
	spec := jobs.Spec{App: "exec", Params: params, Scheme: scheme, Nodes: jobs.NodeSelection{Any: nodes}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var pids []int
	opt := engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir(), OnWorkers: func(ws []*deploy.Worker) {
		for _, w := range ws {
			pids = append(pids, w.Hello.PID)
		}
	}}
	rep, err := engine.Run(ctx, spec, opt)
	return rep, err, pids
}

// TestRunCPoissonSync: the C example on 1, 2 and 4 worker processes under
// the synchronous scheme computes the serial reference's values bit for
// bit; on one node also its iterations (1975) and sum.
func TestRunCPoissonSync(t *testing.T) {
	prog := cPoisson(t)
	p := poisson.Problem{N: 32, Eps: 1e-8}
	_, serialIters, _ := poisson.SerialSolve(p)
	for _, tc := range linkCases([]int{1, 2, 4}) {
		nodes := tc.n
		t.Run(tc.name, func(t *testing.T) {
			rep, err, _ := runExec(t, jobs.Synchronous, nodes, withLink(t, tc.link, poissonParams(prog, p.N)))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			it := rep.Nodes[0].Iterations
			for _, n := range rep.Nodes {
				if n.Iterations != it {
					t.Errorf("node %s: %d iterations, rank 0 %d", n.Node, n.Iterations, it)
				}
				// The halos show in the node's traffic, whoever moved them
				// (in process: the program's endpoint).
				var bytes uint64
				for _, nt := range n.Traffic {
					bytes += nt.Bytes
				}
				if halos := uint64(it * 8 * p.N * p.N); nodes > 1 && bytes < halos {
					t.Errorf("node %s: traffic %+v, want at least the %d bytes of its halos", n.Node, n.Traffic, halos)
				}
			}
			// The convergence tokens stop every rank after the serial loop
			// would have, by the spanning tree's height plus its depth.
			if it < serialIters || it > serialIters+2*(nodes-1) {
				t.Fatalf("%d iterations, serial %d", it, serialIters)
			}
			// The serial loop run for exactly as many iterations.
			want, _, _ := poisson.SerialSolve(poisson.Problem{N: p.N, Eps: math.SmallestNonzeroFloat64, MaxIter: it})
			sameBits(t, rep.Solution, want)
			if nodes == 1 {
				if sum := poisson.Sum(p, rep.Solution); it != 1975 || sum != 165.89674402239899 {
					t.Fatalf("%d iterations, sum %.17g; the C reference: 1975, 165.89674402239899", it, sum)
				}
			}
		})
	}
}

// TestRunCPoissonAsync: asynchronous runs of the C example end with a true
// residual below ε (a few by default, 20 with GRIDTUI_LONG_TESTS).
func TestRunCPoissonAsync(t *testing.T) {
	prog := cPoisson(t)
	p := poisson.Problem{N: 24, Eps: 1e-8}
	runs := 3
	if os.Getenv("GRIDTUI_LONG_TESTS") != "" {
		runs = 20
	}
	for _, tc := range linkCases(make([]int, runs)) {
		t.Run(tc.name, func(t *testing.T) {
			rep, err, _ := runExec(t, jobs.Asynchronous, 4, withLink(t, tc.link, poissonParams(prog, p.N)))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if r := poisson.Residual(p, rep.Solution); !(r < p.Eps) {
				t.Fatalf("true residual %.3e, want < %g", r, p.Eps)
			}
		})
	}
}

// TestRunCPoissonDetectors: the C example under the hybrid scheme (the
// links inside a cluster synchronous, across asynchronous) and under the
// asynchronous scheme with the switch detector ends below ε.
func TestRunCPoissonDetectors(t *testing.T) {
	prog := cPoisson(t)
	p := poisson.Problem{N: 24, Eps: 1e-8}
	for _, tc := range []struct {
		scheme   jobs.Scheme
		detector jobs.Detector
		link     string
	}{{jobs.Hybrid, "", "window"}, {jobs.Asynchronous, jobs.DetectSwitch, "window"}, {jobs.Hybrid, jobs.DetectSwitch, "window"},
		{jobs.Hybrid, "", "inprocess"}, {jobs.Asynchronous, jobs.DetectSwitch, "inprocess"}, {jobs.Hybrid, jobs.DetectSwitch, "inprocess"}} {
		t.Run(tc.link+"/"+string(tc.scheme)+"/"+string(tc.detector), func(t *testing.T) {
			spec := jobs.Spec{App: "exec", Params: withLink(t, tc.link, poissonParams(prog, p.N)), Scheme: tc.scheme, Detector: tc.detector,
				Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}}, Cores: 1}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if r := poisson.Residual(p, rep.Solution); !(r < p.Eps) {
				t.Fatalf("true residual %.3e, want < %g", r, p.Eps)
			}
		})
	}
}

// TestRunFailures: a program that crashes, exits early, hangs, never calls
// the library, or breaks the rules fails the run with an error naming the
// node and the program, and neither a worker nor a program is left.
func TestRunFailures(t *testing.T) {
	prog := faulty(t)
	tests := map[string]struct {
		mode   string
		scheme jobs.Scheme
		want   string
	}{
		"crash":      {"crash", jobs.Synchronous, "crashed (signal: segmentation fault) during iteration 5"},
		"exit":       {"exit", jobs.Asynchronous, `exited with status 3 during iteration 5; its last output: "faulty: leaving early"`},
		"hang":       {"hang", jobs.Synchronous, "no call for 5s during iteration 5 (hung?"},
		"nolib":      {"nolib", jobs.Synchronous, "exited with status 0 without calling GRID_Init"},
		"nolib-hang": {"nolib-hang", jobs.Hybrid, "no call for 5s without calling GRID_Init"},
		"size":       {"size", jobs.Synchronous, "GRID_Send to rank 0 of 16 bytes: the halo holds 8 bytes"},
		"rank":       {"rank", jobs.Asynchronous, "GRID_Send to rank 10, which is not a neighbour"},
		"ctrl":       {"ctrl", jobs.Synchronous, "GRID_Send to rank 0 with flags 2: the environment's detectors own the CTRL messages"},
		"result":     {"result", jobs.Synchronous, "a call out of order"},
		"abort":      {"abort", jobs.Asynchronous, "GRID_Abort: the matrix is singular"},
		"register":   {"register", jobs.Synchronous, "GRID_CheckpointRegister after the loop began"},
	}
	for _, link := range links {
		for name, tc := range tests {
			t.Run(link+"/"+name, func(t *testing.T) {
				runFailure(t, prog, link, tc.mode, tc.scheme, tc.want)
			})
		}
	}
}

// runFailure runs faulty.c in mode on rank 1 of 3 over link and checks
// the error and that no process is left. The timeout (5 s) bounds every
// rank's silence: a sound rank must make its first call within it, which
// a loaded CI machine missed at 2 s.
func runFailure(t *testing.T, prog, link, mode string, scheme jobs.Scheme, wantErr string) {
	pidFile := t.TempDir() + "/pids"
	params := withLink(t, link, map[string]string{"program": prog, "args": mode + " 1 5 " + pidFile, "items": "12", "timeout": "5", "eps": "1e-30"})
	rep, err, pids := runExec(t, scheme, 3, params)
	if err == nil || !errors.Is(err, engine.ErrRunFailed) {
		t.Fatalf("run: %v, want a failure", err)
	}
	want := fmt.Sprintf(`: rank 1: application failed "exec": exec: program %s on rank 1: %s`, prog, wantErr)
	if !strings.Contains(err.Error(), want) || rep.FailedNode == "" || !strings.Contains(err.Error(), "node "+rep.FailedNode+": rank 1") {
		t.Fatalf("error %q (failed node %q), want it to contain %q", err, rep.FailedNode, want)
	}
	b, _ := os.ReadFile(pidFile)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	if len(pids) < 4 {
		t.Fatalf("pids %v: want 3 workers and at least one program", pids)
	}
	for _, pid := range pids {
		if stillRunning(pid, 3*time.Second) {
			t.Errorf("process %d still runs 3s after the run", pid)
		}
	}
}

// stillRunning reports whether process pid still runs after grace: a
// process the run killed as it returned may take a moment to die on a busy
// machine; one left behind is still there.
func stillRunning(pid int, grace time.Duration) bool {
	for end := time.Now().Add(grace); running(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			return true
		}
	}
	return false
}

// running reports whether process pid exists and is no zombie (a program
// killed with its worker's process group is reparented, and the init of a
// container may never reap it).
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}

// TestRunMaxIter: the job's max_iter stops the program's loop (GRID_Iterate
// returns 0) on every node, below the job's max_iterations.
func TestRunMaxIter(t *testing.T) {
	prog := cPoisson(t)
	for _, link := range links {
		t.Run(link, func(t *testing.T) {
			params := withLink(t, link, poissonParams(prog, 16))
			params["max_iter"] = "37"
			rep, err, _ := runExec(t, jobs.Synchronous, 2, params)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, n := range rep.Nodes {
				if n.Iterations != 37 {
					t.Errorf("node %s: %d iterations, want 37", n.Node, n.Iterations)
				}
			}
			if rep.Outcome != "not converged" {
				t.Errorf("outcome %q, want not converged", rep.Outcome)
			}
			want, _, _ := poisson.SerialSolve(poisson.Problem{N: 16, Eps: math.SmallestNonzeroFloat64, MaxIter: 37})
			sameBits(t, rep.Solution, want)
		})
	}
}

// TestRunProgramMissing: a program missing on one host fails the run
// before it starts, naming that host and the path there; programs gives
// the path per host.
func TestRunProgramMissing(t *testing.T) {
	prog := cPoisson(t)
	params := poissonParams(prog, 8)
	params["programs"] = "alpha-2=/nonexistent/poisson"
	spec := jobs.Spec{App: "exec", Params: params, Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2"}}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err := engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
	want := `exec: program /nonexistent/poisson on host alpha-2 (rank 1): no such file`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run: %v, want %q", err, want)
	}
	params["programs"] = "alpha-2=" + prog + " alpha=/nonexistent/poisson" // the host's entry wins
	params["program"] = ""
	spec.Params = params
	_, err = engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
	want = `exec: program /nonexistent/poisson on host alpha-1 (rank 0): no such file`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run: %v, want %q", err, want)
	}
}

// TestRunSpin: with the spin parameter the worker and the program poll for
// each other's turn before they sleep; the synchronous run still computes
// the serial values bit for bit, and an asynchronous one converges.
func TestRunSpin(t *testing.T) {
	prog := cPoisson(t)
	p := poisson.Problem{N: 16, Eps: 1e-8}
	for _, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous} {
		t.Run(string(scheme), func(t *testing.T) {
			params := poissonParams(prog, p.N)
			params["spin"] = "50"
			rep, err, _ := runExec(t, scheme, 2, params)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if scheme == jobs.Asynchronous {
				if r := poisson.Residual(p, rep.Solution); !(r < p.Eps) {
					t.Fatalf("true residual %.3e", r)
				}
				return
			}
			it := rep.Nodes[0].Iterations
			want, _, _ := poisson.SerialSolve(poisson.Problem{N: p.N, Eps: math.SmallestNonzeroFloat64, MaxIter: it})
			sameBits(t, rep.Solution, want)
		})
	}
}

// TestEarlyExitBeforeResult: a program that leaves once GRID_Iterate
// returned 0, without GRID_Result, is said to have ended before
// GRID_Result, not during an iteration, over either link (in process, the
// library tells the worker before GRID_Iterate returns 0).
func TestEarlyExitBeforeResult(t *testing.T) {
	prog := faulty(t)
	for _, link := range []string{"window", "inprocess"} {
		t.Run(link, func(t *testing.T) {
			params := withLink(t, link, map[string]string{"program": prog, "args": "noresult 1 1000000 /dev/null", "items": "12", "timeout": "2", "eps": "1"})
			_, err, _ := runExec(t, jobs.Synchronous, 3, params)
			if err == nil || !strings.Contains(err.Error(), "before GRID_Result") || strings.Contains(err.Error(), "during iteration") {
				t.Fatalf("run: %v, want an exit before GRID_Result", err)
			}
		})
	}
}
