package poisson

import (
	"bytes"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// benchPart is rank 0's part of n = 64 on 2 or 8 nodes (1 core), built as a
// worker builds it (Define, then NewPart).
func benchPart(b *testing.B, ranks int) gridapp.Part {
	app, _ := gridapp.Lookup(Name)
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "64", "eps": "1e-9"})
	if err != nil {
		b.Fatal(err)
	}
	nn := nodes(ranks, 1)
	task, err := app.Define(v, nn)
	if err != nil {
		b.Fatal(err)
	}
	ps := task.Parts[0]
	part, err := app.NewPart(v, gridapp.Subtask{Rank: 0, Ranks: ranks, Neighbours: ps.Neighbours, Cores: 1, Spec: ps.Spec, Node: nn[0]})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(part.Close)
	return part
}

// BenchmarkSweep is one Jacobi sweep of a part of n = 64 on 2 or 8 nodes:
// the unit the checkpoint's cost is measured against.
func BenchmarkSweep(b *testing.B) {
	for _, ranks := range []int{2, 8} {
		b.Run(map[int]string{2: "2-nodes", 8: "8-nodes"}[ranks], func(b *testing.B) {
			part := benchPart(b, ranks)
			for b.Loop() {
				part.Sweep()
			}
		})
	}
}

// BenchmarkCheckpoint is what a checkpoint costs the iteration: the part's
// state serialized and copied for the writer.
func BenchmarkCheckpoint(b *testing.B) {
	for _, ranks := range []int{2, 8} {
		b.Run(map[int]string{2: "2-nodes", 8: "8-nodes"}[ranks], func(b *testing.B) {
			part := benchPart(b, ranks)
			c, ok := part.(gridapp.Checkpointer)
			if !ok {
				b.Fatalf("%T has no checkpoints", part)
			}
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := c.Checkpoint(&buf); err != nil {
					b.Fatal(err)
				}
				_ = bytes.Clone(buf.Bytes())
			}
		})
	}
}
