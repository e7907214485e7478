package engine

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversStoppedSlowToDie: a stopped (SIGSTOP) worker that lingers
// after it was judged lost, as on a crowded host where a killed process is
// gone seconds later. Its coordinator's control link to it stays up, and
// the worker restarted on its host is the same peer: rmnp sends on a
// peer's oldest link, so the task forwarded to the new worker went to the
// stopped one and was lost with it. The new worker, never given its task,
// sent nothing and was judged lost after StartupTimeout — a second
// recovery, 30 s later (docs/FAILURES.md, Known bugs). The new worker
// must be handed its part only once the old one is gone: one recovery, bit
// for bit.
func TestRunRecoversStoppedSlowToDie(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 28, "1e-8")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	lostLinger = 2 * time.Second
	defer func() { lostLinger = 0 }()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	faultAt(&opt, "beta-3", syscall.SIGSTOP, 60, nil)
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "beta-3")
}
