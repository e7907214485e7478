package engine

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversReusedWorkers: a run on live workers the caller owns (a
// console's pool) whose worker is killed mid-run is recovered like a
// headless one, bit for bit; the new worker is told to OnWorkers, and the
// caller's stop of it leaves nothing running.
func TestRunRecoversReusedWorkers(t *testing.T) {
	names := []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4"}
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // long enough to see every part iterate again under load
	spec.Nodes = jobs.NodeSelection{Any: 4}
	spec.Params["blocks"] = "4x1x1"
	ws, id, secret := startWorkers(t, names...)
	opt := RunOptions{Inventory: inventory.Embedded(), Workers: ws, RunID: id, Secret: secret, NoRecord: true, StoreDir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	want, err := Run(ctx, spec, opt)
	if err != nil {
		t.Fatal(err)
	}
	f := faultAt(&opt, "alpha-3", syscall.SIGKILL, 60, nil)
	for _, w := range ws {
		f.pids[w.Host.Name] = w.Hello.PID
	}
	var started []*deploy.Worker
	inner := opt.OnWorkers
	opt.OnWorkers = func(all []*deploy.Worker) {
		inner(all)
		for _, w := range all {
			if !slices.Contains(ws, w) && !slices.Contains(started, w) {
				started = append(started, w)
			}
		}
	}
	rep, err := Run(ctx, spec, opt)
	t.Cleanup(func() { stopWorkers(started, nil, "") })
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-3")
	if len(started) != 1 || started[0].Host.Name != "alpha-3" {
		t.Fatalf("new workers %d, want one on alpha-3", len(started))
	}
	pid := started[0].Hello.PID
	stopWorkers(started, nil, "")
	assertGone(t, []int{pid})
}
