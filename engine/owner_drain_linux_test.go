package engine

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/owner"
	"github.com/gridtui/gridtui/owner/ownertest"
)

// TestRunOwnerDrainsSync: a synchronous run on the local grid (real
// worker processes) whose alpha-3 is a desktop with an owner policy. The
// test plays the owner: away (its terminal idle an hour) when the run
// starts, back at the keyboard mid-run (the terminal's last input now).
// alpha-3's worker suspends its part, and since holding a part of a
// synchronous run stalls every other part, asks after sync_grace to be
// drained (msgDrain, through its coordinator to the submitter). The part
// moves to a host the job did not use, and the run ends ok, bit for bit
// the undisturbed run.
func TestRunOwnerDrainsSync(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9")
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}

	term := ownertest.NewTerminal(t, "nobody")
	term.Away(time.Hour)
	t.Setenv("HOST_VAR", term.HostVar) // the workers' sampler reads the test's utmp
	p := owner.Default()
	p.IdleToStart, p.ActiveIdle, p.IdleToContinue = 0, 30*time.Second, time.Hour
	p.CPUBusyFor, p.SyncGrace = time.Second, 2*time.Second
	p.Users = []string{"nobody"} // the other workers' CPU is not the owner's
	inv := loadInventory(t, "")
	for s := range inv.Sites {
		for c := range inv.Sites[s].Clusters {
			for h := range inv.Sites[s].Clusters[c].Hosts {
				if hp := &inv.Sites[s].Clusters[c].Hosts[h]; hp.Name == "alpha-3" {
					hp.Owner = &p
				}
			}
		}
	}
	var mu sync.Mutex
	var lines []string
	opt := RunOptions{Inventory: inv, StoreDir: t.TempDir()}
	var back time.Time
	faultAt(&opt, "", 0, 60, func() {
		back = time.Now()
		if err := os.Chtimes(term.Dev, back, back); err != nil { // the owner types
			t.Errorf("owner back: %v", err)
		}
	})
	opt.OnLog = func(ev solve.LogEvent) {
		mu.Lock()
		lines = append(lines, ev.Node+": "+ev.Text)
		mu.Unlock()
	}
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-3")
	rc := rep.Recoveries[0]
	if rc.To == "alpha-3" || rc.To == "" {
		t.Errorf("alpha-3's part went to %q, want another host", rc.To)
	}
	if !strings.Contains(rc.Cause, drainCause+": "+ownerDrainWhy) || !strings.Contains(rc.Cause, "sync_grace") {
		t.Errorf("recovery cause %q, want a drain the owner policy asked for after sync_grace", rc.Cause)
	}
	mu.Lock()
	log := strings.Join(lines, "\n")
	mu.Unlock()
	for _, w := range []string{"suspend: owner active", "alpha-3: owner policy: ", "asked to drain: sync run held"} {
		if !strings.Contains(log, w) {
			t.Errorf("event log lacks %q:\n%s", w, log)
		}
	}
	t.Logf("owner back at %s; drained: %s", back.Format(time.TimeOnly), rc.Cause)
}
