package engine

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestRunJoin: a host joins a synchronous run without spares mid-run
// through Control, then a worker of the run is killed: its part moves to
// the joined host (a spare), and the run ends ok below ε. A join of a host
// the inventory does not know, of one holding a part and of one already a
// spare is refused.
func TestRunJoin(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // still iterating when the kill comes
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl}
	refusals := make(chan error, 3)
	var f *fault
	f = faultAt(&opt, "", 0, 30, func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
			defer cancel()
			refusals <- ctl.Join(ctx, "gamma-9")
			refusals <- ctl.Join(ctx, "alpha-1")
			if err := ctl.Join(ctx, "beta-4"); err != nil {
				t.Errorf("join beta-4: %v", err)
				return
			}
			refusals <- ctl.Join(ctx, "beta-4")
			f.mu.Lock()
			pid := f.pids["alpha-3"]
			f.mu.Unlock()
			syscall.Kill(pid, syscall.SIGKILL)
		}()
	})
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	for _, want := range []string{"not a host of the inventory", "already holds a part", "already a spare"} {
		select {
		case err := <-refusals:
			if !errors.Is(err, ErrJoin) || !strings.Contains(err.Error(), want) {
				t.Errorf("refused join: %v, want ErrJoin saying %q", err, want)
			}
		case <-time.After(time.Second):
			t.Fatalf("no refusal saying %q\n%s", want, summary(rep))
		}
	}
	if rep.Outcome != "ok" || len(rep.Recoveries) == 0 {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	t.Logf("recoveries %+v", rep.Recoveries)
	if rc := rep.Recoveries[0]; rc.Node != "alpha-3" || rc.How != "spare" || rc.To != "beta-4" {
		t.Errorf("recovery %+v: want alpha-3's part on the joined spare beta-4", rc)
	}
	if !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Errorf("true residual %g (checked %v), want below ε = %g", rep.Residual, rep.Checked, rep.Eps)
	}
}

// A run that ends while hosts are still joining answers every one of them
// (more than the channel holds), refusing those that started too late.
func TestJoiningFinish(t *testing.T) {
	j := newJoining(context.Background(), loadInventory(t, ""), RunOptions{}, nil)
	n := cap(j.done) + 4
	replies := make([]chan error, n)
	for i := range replies {
		replies[i] = make(chan error, 1)
		j.wg.Go(func() { j.done <- joinResult{host: "beta-4", reply: replies[i]} })
	}
	done := make(chan struct{})
	go func() {
		j.finish()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("finish did not return")
	}
	for i, r := range replies {
		select {
		case err := <-r:
			if !errors.Is(err, ErrJoin) || !strings.Contains(err.Error(), "the run ended") {
				t.Errorf("join %d: %v, want ErrJoin saying the run ended", i, err)
			}
		default:
			t.Errorf("join %d: no answer", i)
		}
	}
	if (*joining)(nil).pendingHosts() != nil {
		t.Error("no joining: hosts pending")
	}
}
