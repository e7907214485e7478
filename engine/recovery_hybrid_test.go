package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// TestRunRecoversHybridCluster: a hybrid run of two clusters (alpha and
// beta, four nodes each) loses alpha-3 mid-run. The run ends ok with a
// true residual below ε; every part of alpha restarts at the same
// iteration, the one the recovery records (its cluster rolled back to a
// checkpoint all its parts hold); every part of beta resumes where it
// stopped: its counter never goes back. Before, every part restored its
// own newest checkpoint, beta's survivors going back up to an interval.
func TestRunRecoversHybridCluster(t *testing.T) {
	spec := recoverySpec(jobs.Hybrid, 24, "1e-9")
	// An interval of 100: a survivor of beta sent back to its newest
	// checkpoint goes back past what its statuses showed.
	spec.Resilience.CheckpointEvery = 100
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Deploy: deploy.Options{StopTimeout: 10 * time.Second}}
	f := faultAt(&opt, "alpha-3", syscall.SIGKILL, 250, nil)
	w := newCounterWatch()
	var mu sync.Mutex
	restored, cluster := map[int]uint64{}, map[int]string{}
	inject := opt.OnSnapshot
	opt.OnSnapshot = func(s Snapshot) {
		inject(s)
		w.see(s)
		mu.Lock()
		defer mu.Unlock()
		for _, st := range s.Nodes {
			if st.Iteration > 0 {
				restored[st.Rank] = st.Restored // the last attempt's
				cluster[st.Rank] = strings.SplitN(st.Node, "-", 2)[0]
			}
		}
	}
	rep, err := Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	f.mu.Lock()
	killed := !f.signaled.IsZero()
	f.mu.Unlock()
	if !killed || len(rep.Recoveries) == 0 {
		t.Skip("missed: the run ended before the kill")
	}
	for _, r := range rep.Recoveries {
		t.Log(r)
	}
	t.Logf("restored %v, %d iterations", restored, rep.Nodes[0].Iterations)
	if rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Fatalf("outcome %q, true residual %g (checked %v, ε %g)", rep.Outcome, rep.Residual, rep.Checked, rep.Eps)
	}
	rc := rep.Recoveries[0]
	if len(rep.Recoveries) != 1 || rc.Node != "alpha-3" || rc.FromStart || rc.From == 0 {
		t.Errorf("recoveries %+v: want alpha-3's cluster rolled back to a checkpoint", rep.Recoveries)
	}
	mu.Lock()
	defer mu.Unlock()
	var alpha []int
	for r, c := range cluster {
		if c == "alpha" {
			alpha = append(alpha, r)
		}
	}
	slices.Sort(alpha)
	if len(alpha) != 4 || !slices.Equal(rc.Cluster, alpha) {
		t.Errorf("recovery's cluster %v, want alpha's ranks %v", rc.Cluster, alpha)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for r, c := range cluster {
		switch {
		case c == "alpha" && restored[r] != rc.From:
			t.Errorf("rank %d (alpha) restarted at %d, want its cluster's %d", r, restored[r], rc.From)
		case c == "beta" && len(w.backs[r]) > 0:
			t.Errorf("rank %d (beta) went back: %v", r, w.backs[r])
		case c == "beta" && restored[r] == 0:
			t.Errorf("rank %d (beta) restarted from the start, want where it stopped", r)
		}
	}
}
