package engine

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestGatewayKilledRecovers kills (SIGKILL) a site's gateway in the middle
// of a synchronous run across two local sites whose cross-site pair links
// through the gateways: the run recovers on the same workers without that
// gateway (its pair on the direct route: local hosts have no SSH tunnel),
// and ends ok, bit for bit the undisturbed run.
func TestGatewayKilledRecovers(t *testing.T) {
	gatewayFirst = true
	t.Cleanup(func() { gatewayFirst = false })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	spec := jobs.Spec{Name: "gwlost", App: "poisson", Params: map[string]string{"n": "24", "eps": "1e-7"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 4}, Cores: 1, MaxIter: 1 << 30, WallTime: 2 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 25}}
	run := func(kill bool) *Report {
		opt := RunOptions{Inventory: inv, StoreDir: t.TempDir(), NoRecord: true, Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
		var (
			mu     sync.Mutex
			killed int
		)
		if kill {
			opt.OnSnapshot = func(s Snapshot) {
				mu.Lock()
				defer mu.Unlock()
				if killed != 0 {
					return
				}
				for _, st := range s.Nodes {
					if st.Iteration < 60 || st.State == solve.StateTerminated {
						return
					}
				}
				if killed = childGateway(t, "gw-east"); killed > 0 {
					syscall.Kill(killed, syscall.SIGKILL)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		rep, err := Run(ctx, spec, opt)
		if err != nil {
			t.Fatalf("kill %v: %v\n%s", kill, err, summary(rep))
		}
		mu.Lock()
		defer mu.Unlock()
		if kill && killed == 0 {
			t.Fatal("no gateway process gw-east found to kill")
		}
		return rep
	}
	want := run(false)
	rep := run(true)
	if rep.Outcome != "ok" || len(rep.Recoveries) == 0 || rep.Recoveries[0].Node != "gw-east" {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s (%s): %s, from iteration %d, in %v", rc.Node, rc.Cause, rc.How, rc.From, rc.Took)
	for _, r := range rep.Routes {
		if r.Via != "" {
			t.Errorf("route %s ↔ %s still via %q after the gateway's loss", r.A, r.B, r.Via)
		}
	}
	checkSameFigures(t, rep, want)
	for i := range rep.Nodes {
		if rep.Nodes[i].Iterations != want.Nodes[i].Iterations {
			t.Errorf("rank %d: %d iterations, undisturbed %d", i, rep.Nodes[i].Iterations, want.Nodes[i].Iterations)
		}
	}
}

// TestGatewayLostStopWaited stops (SIGSTOP) a site's gateway in the middle
// of a run that checkpoints, and holds back the kill of lost processes
// (lostLinger) past the run's end: the run recovers without the gateway,
// and Run returns only once the gateway's process is gone, not while its
// stop is still under way.
func TestGatewayLostStopWaited(t *testing.T) {
	gatewayFirst, lostLinger = true, 8*time.Second
	t.Cleanup(func() { gatewayFirst, lostLinger = false, 0 })
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	spec := jobs.Spec{Name: "gwstop", App: "poisson", Params: map[string]string{"n": "24", "eps": "1e-7"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 4}, Cores: 1, MaxIter: 1 << 30, WallTime: 2 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 25}}
	opt := RunOptions{Inventory: inv, StoreDir: t.TempDir(), NoRecord: true, Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	var (
		mu      sync.Mutex
		pid     int
		stopped time.Time
	)
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		if pid != 0 {
			return
		}
		for _, st := range s.Nodes {
			if st.Iteration < 60 || st.State == solve.StateTerminated {
				return
			}
		}
		if pid = childGateway(t, "gw-east"); pid > 0 {
			stopped = time.Now()
			syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, opt)
	returned := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if pid == 0 {
		t.Fatal("no gateway process gw-east found to stop")
	}
	alive := syscall.Kill(pid, 0) == nil
	if alive {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if err != nil || rep.Outcome != "ok" || len(rep.Recoveries) == 0 || rep.Recoveries[0].Node != "gw-east" {
		t.Fatalf("error %v, outcome %q, recoveries %+v", err, rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("gateway stopped; lost after %v, iterating again %v later; the run ended %v later, Run returned %v after that (the kill held back %v)",
		rc.Detected.Sub(stopped).Round(time.Millisecond), rc.Took.Round(time.Millisecond), rep.Started.Add(rep.Wall).Sub(rc.Detected).Round(time.Millisecond),
		returned.Sub(rep.Started.Add(rep.Wall)).Round(time.Millisecond), lostLinger)
	if alive {
		t.Errorf("Run returned with the lost gateway's process %d still alive", pid)
	}
}

// TestDeadBlamed: a worker's failure charged to a silent gateway takes the
// worker with the gateway only when it is the worker's own silence, not a
// link's failure (which the gateway explains).
func TestDeadBlamed(t *testing.T) {
	g := &runGateway{Name: "gw-east", Site: "east"}
	for _, c := range []struct {
		blamed *worker.Failure
		want   []string
	}{
		{nil, nil},
		{&worker.Failure{Node: "beta-2", Cause: "coordinator sent " + worker.SilentCause + "3.1s, φ 12.0 (hung, stopped or cut off)"}, []string{"beta-2"}},
		{&worker.Failure{Node: "beta-2", Cause: worker.SilentCause + "3.1s, φ 12.0 (hung, stopped or cut off)"}, []string{"beta-2"}},
		{&worker.Failure{Node: "beta-2", Cause: "halo from rank 1: " + linkDead}, nil},
		{&worker.Failure{Node: "gamma-9", Cause: worker.SilentCause + "3.1s"}, nil}, // not a rank of the run
	} {
		s := &submission{plan: &Plan{Ranks: []string{"alpha-1", "alpha-2", "beta-1", "beta-2"}}, gateways: map[string]*runGateway{"east": g},
			failed: &worker.Failure{Node: "gw-east", Cause: "gateway of site east on beta-1 silent for 2.5s"}, blamed: c.blamed}
		if got := s.deadBlamed(); !slices.Equal(got, c.want) {
			t.Errorf("blamed %+v: gone %v, want %v", c.blamed, got, c.want)
		}
	}
}
