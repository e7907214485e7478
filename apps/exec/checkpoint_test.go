package exec_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestCheckpoints: a program that registers its state (testdata/ckchain.c)
// stopped after an odd iteration, checkpointed and restored into programs
// started again, continues bit for bit (gridapp.CheckCheckpoints); the C
// example, which registers nothing, has no checkpoints.
func TestCheckpoints(t *testing.T) {
	app, _ := gridapp.Lookup("exec")
	v, err := gridapp.Parse(app.Params(), map[string]string{"program": ckchain(t), "items": "24", "eps": "1e-30", "max_iter": "60"})
	if err != nil {
		t.Fatal(err)
	}
	for _, nodes := range []int{1, 3} {
		for _, at := range []int{1, 17, 30} {
			if err := gridapp.CheckCheckpoints(app, v, make([]gridapp.Node, nodes), at); err != nil {
				t.Errorf("%d nodes, checkpoint after %d: %v", nodes, at, err)
			}
		}
	}
	w, err := gridapp.Parse(app.Params(), poissonParams(cPoisson(t), 8))
	if err != nil {
		t.Fatal(err)
	}
	task, err := app.Define(w, make([]gridapp.Node, 1))
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.NewPart(w, gridapp.Subtask{Rank: 0, Ranks: 1, Cores: 1, Spec: task.Parts[0].Spec})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, ok := p.(gridapp.Checkpointer); ok {
		t.Errorf("the part of a program that registers nothing is a Checkpointer")
	}
}

// TestCheckpointWithinStuckProgram: the checkpoint an asynchronous attempt
// takes as it aborts (CheckpointWithin) gives up on a program that stopped
// answering (testdata/faulty.c ckstop: a real process, SIGSTOPped while it
// waits in GRID_Iterate) within its bound, not the job's timeout (60 s);
// the same call on a program that answers gives its checkpoint.
func TestCheckpointWithinStuckProgram(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	app, _ := gridapp.Lookup("exec")
	v, err := gridapp.Parse(app.Params(), map[string]string{"program": faulty(t), "args": "ckstop 0 3 " + pids,
		"items": "8", "eps": "1e-30", "timeout": "60"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := app.Define(v, make([]gridapp.Node, 1))
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.NewPart(v, gridapp.Subtask{Rank: 0, Ranks: 1, Cores: 1, Spec: task.Parts[0].Spec})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, ok := p.(gridapp.BoundedCheckpointer)
	if !ok {
		t.Fatalf("the part of a program that registers its state (%T) is not a BoundedCheckpointer", p)
	}
	var buf bytes.Buffer
	t0 := time.Now()
	p.Sweep()
	t.Logf("first sweep after %v", time.Since(t0))
	if err := c.CheckpointWithin(&buf, 5*time.Second); err != nil || buf.Len() == 0 {
		t.Fatalf("checkpoint of a program that answers: %v (%d bytes)", err, buf.Len())
	}
	p.Sweep()
	p.Sweep() // iteration 3: the program stops 0.2 s after its GRID_Iterate
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	stat := "/proc/" + strings.TrimSpace(string(b)) + "/stat"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s, err := os.ReadFile(stat)
		if err != nil {
			t.Skipf("cannot see whether the program stopped: %v", err)
		}
		if f := strings.Fields(string(s[bytes.LastIndexByte(s, ')')+1:])); len(f) > 0 && f[0] == "T" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program did not stop: %s", s)
		}
	}
	start := time.Now()
	err = c.CheckpointWithin(&buf, 300*time.Millisecond)
	if took := time.Since(start); err == nil || took > 5*time.Second {
		t.Fatalf("checkpoint of a stopped program: %v after %v, want an error within 0.3 s", err, took)
	}
	t.Logf("after %v: %v", time.Since(start), err)
}
