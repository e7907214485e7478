package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunDefinesBeforeStarting: a decomposition the application refuses
// fails Run before any worker starts. The inventory's hosts are SSH hosts
// that do not exist: starting a worker would fail on the connection (or,
// on a batch site, wait for an allocation) instead of naming the job's
// mistake.
func TestRunDefinesBeforeStarting(t *testing.T) {
	inv, err := inventory.Parse("ghosts.toml", []byte(`
[[site]]
name = "hpc"
  [[site.cluster]]
  name = "cpu"
  hosts = "ghost[1-4].invalid"
  cores = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		spec jobs.Spec
		want string
	}{
		"poisson blocks": {jobs.Spec{App: "poisson", Params: map[string]string{"blocks": "3x1x1"}, Nodes: jobs.NodeSelection{Any: 4}},
			"blocks 3x1x1 make 3 blocks for 4 nodes"},
		"sparse matrix": {jobs.Spec{App: "sparse", Params: map[string]string{"matrix": "/nonexistent/a.mtx"}, Nodes: jobs.NodeSelection{Any: 4}},
			"sparse: matrix"},
		"sparse async": {jobs.Spec{App: "sparse", Scheme: jobs.Asynchronous, Params: map[string]string{"matrix": nondominant(t)}, Nodes: jobs.NodeSelection{Any: 4}},
			"not diagonally dominant"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var started []string
			opt := RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir(),
				OnLog: func(e solve.LogEvent) { started = append(started, e.Text) }}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := Run(ctx, tc.spec, opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrPlan) {
				t.Fatalf("run: %v, want a plan error containing %q", err, tc.want)
			}
			if len(started) > 0 {
				t.Errorf("the run logged %q before refusing the job", started)
			}
		})
	}
}

// nondominant is the absolute path of a matrix that is not diagonally
// dominant, which the sparse application refuses asynchronous runs of.
func nondominant(t *testing.T) string {
	p, err := filepath.Abs("../apps/sparse/testdata/tridiag-nondominant.mtx")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
