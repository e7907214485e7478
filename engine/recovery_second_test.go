package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// hostGone makes a new worker named host fail to start on host for the
// rest of the test (the host is gone), as a restart there meets it.
func hostGone(t *testing.T, host string) {
	t.Helper()
	start := startRecoveryWorkers
	startRecoveryWorkers = func(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, boot func(inventory.Host) deploy.Boot, opt deploy.Options) ([]*deploy.Worker, error) {
		for _, h := range hosts {
			if h.Name == host && boot(h).Node == host {
				return nil, errors.New("deploy: start worker " + host + ": the host is gone (test)")
			}
		}
		return start(ctx, inv, hosts, boot, opt)
	}
	t.Cleanup(func() { startRecoveryWorkers = start })
}

// TestRunRecoversSecondPart: a job with no spare whose lost node's host
// takes no new worker puts the part on a second worker of a surviving node
// of the same cluster ("alpha-1#2"), bit for bit the undisturbed run.
func TestRunRecoversSecondPart(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 24, "1e-7")
	want, _, err := runKilled(t, spec, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	hostGone(t, "alpha-3")
	rep, _, err := runKilled(t, spec, "alpha-3", 60)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	checkRecovered(t, rep, want, "alpha-3")
	rc := rep.Recoveries[0]
	host, _, second := strings.Cut(rc.To, secondSep)
	if !second || !strings.HasPrefix(host, "alpha-") || host == "alpha-3" || rc.How != "second part on "+host {
		t.Errorf("part moved to %s (%s), want a second part on a surviving alpha node", rc.To, rc.How)
	}
	if got := rep.Nodes[rc.Rank].Node; got != rc.To {
		t.Errorf("rank %d on %s in the report, want %s", rc.Rank, got, rc.To)
	}
}
