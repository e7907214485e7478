package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// deepSpec is a job of 8 workers in 8 groups of one; with levelFanout 2
// the planner puts two levels of coordinators of coordinators above them:
// alpha-1 over alpha-2, alpha-3 over alpha-4, then alpha-1 over alpha-3
// (the same in beta). The submitter talks to alpha-1 and beta-1 only, and
// beta-4 is three hops from it (beta-1, beta-3, beta-4).
func deepSpec(scheme jobs.Scheme, eps float64) jobs.Spec {
	var gs []jobs.Group
	for _, c := range []string{"alpha", "beta"} {
		for i := 1; i <= 4; i++ {
			name := fmt.Sprintf("%s-%d", c, i)
			gs = append(gs, jobs.Group{Coordinator: name, Workers: []string{name}})
		}
	}
	return jobs.Spec{App: "obstacle", Params: map[string]string{"n": "32", "eps": strconv.FormatFloat(eps, 'g', -1, 64)}, Scheme: scheme, Cores: 1, Groups: gs}
}

func lowFanout(t *testing.T) {
	old := worker.LevelFanout
	worker.LevelFanout = 2
	t.Cleanup(func() { worker.LevelFanout = old })
}

// TestRunLevels runs a job through three levels of coordinators with real
// worker processes: the submitter assigns to one coordinator, which
// forwards the assignments down; telemetry and results come back up.
func TestRunLevels(t *testing.T) {
	lowFanout(t)
	for _, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous} {
		t.Run(string(scheme), func(t *testing.T) {
			var mu sync.Mutex
			var assigned []string
			groups := map[int]bool{}
			rep := runJob(t, loadInventory(t, ""), deepSpec(scheme, 1e-6), RunOptions{
				OnLog: func(ev solve.LogEvent) {
					mu.Lock()
					defer mu.Unlock()
					if strings.HasPrefix(ev.Text, "coordinates group") {
						assigned = append(assigned, ev.Node+": "+ev.Text)
					}
				},
				OnSnapshot: func(s Snapshot) {
					mu.Lock()
					defer mu.Unlock()
					for _, n := range s.Nodes {
						if n.State != solve.StateStarting {
							groups[n.Group] = true
						}
					}
				}})
			mu.Lock()
			defer mu.Unlock()
			want := []string{"alpha-1: coordinates group 0: 1 worker, and 2 coordinators below it (4 workers in all)",
				"beta-1: coordinates group 4: 1 worker, and 2 coordinators below it (4 workers in all)"}
			if strings.Join(assigned, "|") != strings.Join(want, "|") {
				t.Errorf("assignments sent by the submitter: %q, want %q", assigned, want)
			}
			if len(rep.Nodes) != 8 || len(groups) != 8 {
				t.Errorf("%d nodes in the report, telemetry from groups %v; want 8 and 8", len(rep.Nodes), groups)
			}
			for _, n := range rep.Nodes {
				if n.State != solve.StateTerminated {
					t.Errorf("node %s ended %v", n.Node, n.State)
				}
			}
		})
	}
}

// TestRunLevelsFailures stops a coordinator three hops from the submitter
// (beta-4) and one two hops from it (beta-3, whose child is beta-4), and
// checks that the failure travels up and the run stops within the bound,
// nothing left running.
func TestRunLevelsFailures(t *testing.T) {
	lowFanout(t)
	for _, victim := range []string{"beta-4", "beta-3"} {
		t.Run(victim, func(t *testing.T) {
			spec := deepSpec(jobs.Asynchronous, 1e-15)
			spec.MaxIter, spec.WallTime = 1<<30, 2*time.Minute
			opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), NoRecord: true}
			f := faultAt(&opt, victim, syscall.SIGSTOP, 20, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			crowded := worker.HostCrowded(time.Now())
			rep, err := Run(ctx, spec, opt)
			crowded = crowded || worker.HostCrowded(time.Now())
			if !errors.Is(err, ErrRunFailed) || rep == nil || rep.FailedNode != victim || !strings.Contains(rep.Cause, "heartbeat") {
				t.Fatalf("want %s named for missed heartbeats; got %v", victim, err)
			}
			lag := f.lag()
			limit := hangLimit
			if raceDetector {
				limit *= 2
			}
			if crowded {
				// The stated bound on a crowded host (heartbeat.go).
				limit = max(limit, worker.ExcuseLimit*worker.HeartbeatTimeout+200*time.Millisecond)
			}
			if lag > limit {
				t.Errorf("detected after %v, want at most %v", lag, limit)
			}
			assertGone(t, f.allPIDs())
			t.Logf("%s stopped: named after %v: %v", victim, lag.Round(time.Millisecond), err)
		})
	}
}

// TestAssignments checks the assignments the submitter builds for the
// levels: one per top coordinator, each carrying its subtree, with parents
// set on the way down.
func TestAssignments(t *testing.T) {
	lowFanout(t)
	spec := deepSpec(jobs.Synchronous, 1e-6)
	base := map[string]*worker.GroupAssign{}
	for gi, g := range spec.Groups {
		a := &worker.GroupAssign{Group: gi, Coordinator: g.Coordinator}
		for _, w := range g.Workers {
			a.Members = append(a.Members, worker.Member{Node: w})
		}
		base[g.Coordinator] = a
	}
	top := worker.Assignments(worker.Levels(spec.Groups), base, map[string][]string{})
	if len(top) != 2 || top[0].Coordinator != "alpha-1" || top[1].Coordinator != "beta-1" || top[0].Parent != worker.SubmitterID {
		t.Fatalf("top assignments %+v", top)
	}
	var got []string
	var walk func(a worker.GroupAssign, depth int)
	walk = func(a worker.GroupAssign, depth int) {
		got = append(got, fmt.Sprintf("%d:%s<-%d", depth, a.Coordinator, a.Parent))
		for _, s := range a.Subgroups {
			walk(s.Assign, depth+1)
		}
	}
	walk(top[0], 0)
	a1, a3 := worker.NodeID("alpha-1"), worker.NodeID("alpha-3")
	want := fmt.Sprintf("0:alpha-1<-0 1:alpha-2<-%d 1:alpha-3<-%d 2:alpha-4<-%d", a1, a1, a3)
	if strings.Join(got, " ") != want {
		t.Errorf("tree %q, want %q", strings.Join(got, " "), want)
	}
	n := 0
	top[0].Subtree(func(worker.Member, int) { n++ })
	if n != 4 {
		t.Errorf("subtree of %d members, want 4", n)
	}
}
