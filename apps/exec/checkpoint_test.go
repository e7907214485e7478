package exec_test

import (
	"testing"

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
