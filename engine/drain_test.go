package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunDrain drains a node of a synchronous run mid-run through
// Control: its part moves to a new worker on a host the job did not use,
// the run ends ok, bit for bit the undisturbed run; a drain of a node
// outside the run is refused and the run goes on.
func TestRunDrain(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // long enough to see every part iterate again under load
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl}
	refused := make(chan error, 1)
	faultAt(&opt, "", 0, 60, func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			refused <- ctl.Drain(ctx, "beta-4", "")
			if err := ctl.Drain(ctx, "alpha-3", "its owner came back"); err != nil {
				t.Errorf("drain alpha-3: %v", err)
			}
		}()
	})
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if err := <-refused; !errors.Is(err, ErrDrain) {
		t.Errorf("drain of beta-4, outside the run: %v, want ErrDrain", err)
	}
	checkRecovered(t, rep, want, "alpha-3")
	if to := rep.Recoveries[0].To; to == "alpha-3" || to == "" {
		t.Errorf("alpha-3's part went to %q, want another host", to)
	}
}

// TestRunDrainNowhere: on a grid whose every host holds a part and with no
// spare, a drain is refused (the part has nowhere to go) and the run goes
// on to the end, instead of failing at the recovery.
func TestRunDrainNowhere(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // still iterating when the drain comes
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	inv := loadInventory(t, "")
	for i := range inv.Sites {
		inv.Sites[i].Clusters = slices.DeleteFunc(inv.Sites[i].Clusters, func(c inventory.Cluster) bool { return c.Name != "alpha" })
	}
	inv.Sites = slices.DeleteFunc(inv.Sites, func(s inventory.Site) bool { return len(s.Clusters) == 0 })
	ctl := NewControl()
	opt := RunOptions{Inventory: inv, StoreDir: t.TempDir(), Control: ctl}
	refused := make(chan error, 1)
	faultAt(&opt, "", 0, 30, func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			refused <- ctl.Drain(ctx, "alpha-3", "its owner came back")
		}()
	})
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	select {
	case err := <-refused:
		if !errors.Is(err, ErrDrain) || !strings.Contains(err.Error(), "no spare and no free host") {
			t.Errorf("drain with nowhere to go: %v, want ErrDrain naming why", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the run never reached iteration 30\n%s", summary(rep))
	}
	if rep.Outcome != "ok" || len(rep.Recoveries) != 0 {
		t.Errorf("outcome %q, recoveries %+v: want ok, none", rep.Outcome, rep.Recoveries)
	}
}

// A node's own drain request (msgDrain, its owner policy) of an attempt
// before is dropped as stale; one of the current attempt that the run
// must refuse (here: no checkpoints) is logged, and the run goes on.
func TestDrainRequestFromNode(t *testing.T) {
	s := followedRun(t, solve.StateActive, solve.StateActive)
	var logged []string
	s.logf = func(node, format string, args ...any) {
		logged = append(logged, node+": "+fmt.Sprintf(format, args...))
	}
	s.run = 7
	node := s.plan.Ranks[1]
	apply := func(run uint64) error {
		m, err := worker.EncodeMsg(worker.MsgDrain, worker.DrainRequest{Node: node, Why: "owner back", Run: run})
		if err != nil {
			t.Fatal(err)
		}
		typ, body, err := worker.DecodeMsg(m)
		if err != nil {
			t.Fatal(err)
		}
		return s.apply(typ, body, m)
	}
	if err := apply(6); !errors.Is(err, worker.ErrStale) || s.failed != nil {
		t.Errorf("drain request of the attempt before: %v, failed %+v; want it dropped", err, s.failed)
	}
	if err := apply(7); err != nil || s.failed != nil {
		t.Fatalf("refused drain: %v, failed %+v; want the run to go on", err, s.failed)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], node+": drain asked by the owner policy refused") || !strings.Contains(logged[0], "no checkpoints") {
		t.Errorf("log %q, want the refusal and why", logged)
	}
}
