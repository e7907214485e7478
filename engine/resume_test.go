package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// TestRunResumeAfterInterrupt interrupts an asynchronous run (its context
// ends: Ctrl-C) mid-run and resumes it with RunOptions.Resume: the record
// says the run was interrupted, the resumed run ends ok below ε from each
// part's newest checkpoint and counts the console's loss; a second resume
// is refused (it finished), as are an unknown id and a changed job.
func TestRunResumeAfterInterrupt(t *testing.T) {
	spec := recoverySpec(jobs.Asynchronous, 24, "1e-7")
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	store := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: store}
	faultAt(&opt, "", 0, 120, cancel)
	rep, err := Run(ctx, spec, opt)
	if !errors.Is(err, ErrRunAborted) {
		t.Fatalf("interrupted run: %v, want ErrRunAborted\n%s", err, summary(rep))
	}
	ms, err := Resumable(store)
	if err != nil || len(ms) != 1 || !strings.HasPrefix(ms[0].Ended, "interrupted") || ms[0].ID != rep.RecordID {
		t.Fatalf("resumable runs %+v (%v), want the interrupted one, %s", ms, err, rep.RecordID)
	}
	id := ms[0].ID
	if from, err := ms[0].Checkpoint(); err != nil || from != "each part's newest checkpoint" {
		t.Errorf("checkpoint %q (%v)", from, err)
	}

	changed := spec
	changed.Params = map[string]string{"n": "32", "eps": "1e-7", "blocks": "4x1x1"}
	opt = RunOptions{Inventory: loadInventory(t, ""), StoreDir: store, Resume: id}
	if _, err := Run(context.Background(), changed, opt); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), "changed parameters") {
		t.Errorf("resume with n = 32: %v, want changed parameters", err)
	}
	rep, err = Run(context.Background(), spec, opt)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || !(rep.Residual < rep.Eps) || moved(rep.Recoveries) != 1 || rep.Recoveries[0].How != "resumed run "+id {
		t.Fatalf("resumed: outcome %s, true residual %g, recoveries %+v", rep.Outcome, rep.Residual, rep.Recoveries)
	}
	t.Log(rep.Recoveries[0])
	for _, bad := range []string{id, "20260101T000000Z-000000"} {
		opt.Resume = bad
		if _, err := Run(context.Background(), spec, opt); !errors.Is(err, ErrResume) {
			t.Errorf("resume %s: %v, want ErrResume", bad, err)
		} else {
			t.Log(err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(store, ResumeDir, "*")); len(left) > 0 {
		t.Errorf("left in %s: %v", ResumeDir, left)
	}
	if _, err := os.Stat(filepath.Join(store, "checkpoints", ms[0].Key)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoints of the finished run are still there (%v)", err)
	}
}
