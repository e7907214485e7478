package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunPoisson runs the Poisson problem end to end through worker
// processes: its 2×2×1 blocks make a graph that is no chain (routes and
// pre-flight per edge), the result is assembled by the application, and the
// report carries its true residual and its error against the exact solution.
func TestRunPoisson(t *testing.T) {
	inv := loadInventory(t, "")
	hosts := jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}}
	for _, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Hybrid} {
		t.Run(string(scheme), func(t *testing.T) {
			spec := jobs.Spec{App: "poisson", Params: map[string]string{"n": "16", "eps": "1e-8", "blocks": "2x2x1"},
				Scheme: scheme, Nodes: hosts, Cores: 1}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if rep.Outcome != "ok" || !rep.Checked || !rep.FiguresOK || !(rep.Residual < 1e-8) {
				t.Fatalf("outcome %s, checked %v, figures OK %v, residual %g", rep.Outcome, rep.Checked, rep.FiguresOK, rep.Residual)
			}
			if len(rep.Routes) != 4 {
				t.Errorf("%d routes, want the 4 edges of 2x2 blocks", len(rep.Routes))
			}
			if scheme == jobs.Synchronous {
				for _, n := range rep.Nodes {
					if n.Iterations != rep.Nodes[0].Iterations {
						t.Errorf("node %s: %d iterations, rank 0 %d", n.Node, n.Iterations, rep.Nodes[0].Iterations)
					}
				}
			}
			var b bytes.Buffer
			rep.WriteText(&b)
			for _, want := range []string{"run poisson-n16-" + string(scheme) + ": poisson, blocks = 2x2x1, eps = 1e-8, n = 16",
				"max error against the exact solution: ", "application check: OK"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, b.String())
				}
			}
		})
	}
}

// TestRunSparseRelativeMatrix: a matrix given by a path relative to the
// submitter's working directory reaches the workers as an absolute path
// (each worker opens it in a working directory of its own).
func TestRunSparseRelativeMatrix(t *testing.T) {
	inv := loadInventory(t, "")
	t.Chdir("../apps/sparse")
	spec := jobs.Spec{App: "sparse", Params: map[string]string{"matrix": "testdata/laplace2d-12.mtx", "eps": "1e-8"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2"}}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if rep.Outcome != "ok" || !rep.FiguresOK {
		t.Fatalf("outcome %s, figures OK %v", rep.Outcome, rep.FiguresOK)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "/apps/sparse/testdata/laplace2d-12.mtx") {
		t.Errorf("the report does not name the matrix by its absolute path:\n%s", b.String())
	}
}

// TestRunBadApplication: a sweep that returns NaN on one node fails the run
// with an error naming that node and the application, and no worker is
// left running.
func TestRunBadApplication(t *testing.T) {
	inv := loadInventory(t, "")
	spec := jobs.Spec{App: "test-rod", Params: map[string]string{"fault": "nan", "fault_rank": "1", "fault_iter": "20"},
		Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: 3}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var pids []int
	opt := RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir(), OnWorkers: func(ws []*deploy.Worker) {
		for _, w := range ws {
			pids = append(pids, w.Hello.PID)
		}
	}}
	rep, err := Run(ctx, spec, opt)
	if err == nil || !errors.Is(err, ErrRunFailed) {
		t.Fatalf("run: %v, want a failure", err)
	}
	want := `node alpha-2: rank 1: application failed "test-rod": sweep 20 returned σ = NaN`
	if !strings.Contains(err.Error(), want) || rep.FailedNode != "alpha-2" {
		t.Fatalf("error %q (failed node %q), want it to contain %q", err, rep.FailedNode, want)
	}
	assertGone(t, pids)
}

// TestRunHeatSeries runs the heat equation's time steps end to end through
// worker processes (hybrid: two clusters) with VTI output on: the report
// has the application's figures and lists the files written: the solution
// as one space-time VTI (gridapp.Gridded, the path every application
// takes), then the ParaView series the application writes itself, a .pvd
// and one .vti per level. ParaView's reader accepts the space-time VTI
// (checkVTI).
func TestRunHeatSeries(t *testing.T) {
	inv := loadInventory(t, "")
	dir := t.TempDir()
	spec := jobs.Spec{Name: "heat", App: "heat", Params: map[string]string{"n": "12", "steps": "3", "blocks": "2x2"},
		Scheme: jobs.Hybrid, Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}}, Cores: 1,
		Output: jobs.Output{Dir: dir, VTI: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if rep.Outcome != "ok" || !rep.FiguresOK || !(rep.Residual < 1e-10) {
		t.Fatalf("outcome %s, figures OK %v, residual %g", rep.Outcome, rep.FiguresOK, rep.Residual)
	}
	if len(rep.Outputs) != 6 || !strings.HasSuffix(rep.Outputs[0], "T"+rep.Started.UTC().Format("150405")+".vti") ||
		!strings.HasSuffix(rep.Outputs[1], ".pvd") || !strings.HasSuffix(rep.Outputs[5], "-0003.vti") {
		t.Fatalf("outputs %v, want the space-time .vti, then the series: a .pvd and 4 .vti", rep.Outputs)
	}
	for _, o := range rep.Outputs {
		if !strings.HasPrefix(o, dir) {
			t.Errorf("output %s outside %s", o, dir)
		}
	}
	checkVTI(t, rep.Outputs[0], [3]int{3, 12, 12}, rep.Solution) // steps × n × n
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "sweeps per time step (rank 0): [") {
		t.Errorf("report lacks the sweeps per step:\n%s", b.String())
	}
}
