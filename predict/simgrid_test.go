package predict

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// simgridTolerance is how far SimGrid's replay of the same traces may be
// from the built-in one: the mean node time and every node's own time.
const simgridTolerance = 0.02

// harnessModel is the model of obstacle n on the recorded 2- and 4-node
// runs of the multi-host harness (inter-cluster link at 100 Mbit/s).
func harnessModel(t testing.TB, n int) (*jobs.Results, *Model) {
	t.Helper()
	res, err := jobs.Load("testdata/harness-100mbit")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(res, Problem{App: "obstacle", N: n, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

// TestSimGrid replays the harness traces for 2 to 16 nodes, each scheme,
// with the built-in replay and with SimGrid (python3-simgrid), and fails
// if they differ by more than simgridTolerance. Opt-in: GRIDTUI_SIMGRID=1
// or GRIDTUI_LONG_TESTS=1 (needs apt-get install python3-simgrid).
func TestSimGrid(t *testing.T) {
	if os.Getenv("GRIDTUI_SIMGRID") != "1" && os.Getenv("GRIDTUI_LONG_TESTS") != "1" {
		t.Skip("set GRIDTUI_SIMGRID=1 to cross-check the replay against SimGrid")
	}
	python := "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import simgrid").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import simgrid (apt-get install python3-simgrid): %v: %s", python, err, out)
	}
	for _, n := range []int{48, 64} {
		res, m := harnessModel(t, n)

		for _, nodes := range []int{2, 4, 8, 16} {
			pl := PlatformFor(res, m, nodes)
			for _, s := range AllSchemes {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				c, err := CheckSimGrid(ctx, python, m, pl, Job{Scheme: s, Cores: 1}, 300)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("n = %d, %2d nodes, chain, %-6s replay %.4f s, SimGrid %.4f s: %+.3f %% (worst node %.3f %%), updates %d / %d",
					n, nodes, s, c.Replay, c.SimGrid, 100*c.Diff, 100*c.MaxDiff, c.ReplayUpdates, c.SimGridUpdates)
				if abs(c.Diff) > simgridTolerance || c.MaxDiff > simgridTolerance {
					t.Errorf("n = %d, %d nodes, %s: SimGrid %.4f s against the replay's %.4f s (worst node %.2f %%): beyond %.0f %%",
						n, nodes, s, c.SimGrid, c.Replay, 100*c.MaxDiff, 100*simgridTolerance)
				}
			}
		}
	}
	// A mesh: Poisson's 2×2×2 blocks on 8 nodes (4 + 4), four neighbour
	// pairs across the link between the clusters, which carries one message
	// at a time.
	top, err := TopologyOf(jobs.Spec{App: "poisson", Params: map[string]string{"n": "16"}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := top(8)
	if err != nil {
		t.Fatal(err)
	}
	res, m := harnessModel(t, 48)
	for _, s := range AllSchemes {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		c, err := CheckSimGrid(ctx, python, m, PlatformFor(res, m, 8), Job{Scheme: s, Cores: 1, Graph: g}, 300)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n = 48,  8 nodes, mesh,  %-6s replay %.4f s, SimGrid %.4f s: %+.3f %% (worst node %.3f %%), updates %d / %d",
			s, c.Replay, c.SimGrid, 100*c.Diff, 100*c.MaxDiff, c.ReplayUpdates, c.SimGridUpdates)
		if abs(c.Diff) > simgridTolerance {
			t.Errorf("mesh, %s: SimGrid %.4f s against the replay's %.4f s: beyond %.0f %%", s, c.SimGrid, c.Replay, 100*simgridTolerance)
		}
	}
}
