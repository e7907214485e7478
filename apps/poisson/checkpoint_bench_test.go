package poisson

import (
	"bytes"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// benchBlock is one block of n = 64 on 2 or 8 nodes (1 core), with its
// neighbours' faces.
func benchBlock(b *testing.B, nodes int) *Block {
	p := Problem{N: 64, Eps: 1e-9}
	bl := AutoBlocks(nodes)
	boxes, err := bl.Boxes(p.N)
	if err != nil {
		b.Fatal(err)
	}
	_, dirs := bl.Neighbours(0)
	blk, err := NewBlock(p, boxes[0], dirs, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(blk.Close)
	return blk
}

// BenchmarkSweep is one Jacobi sweep of a block of n = 64 on 2 or 8 nodes:
// the unit the checkpoint's cost is measured against.
func BenchmarkSweep(b *testing.B) {
	for _, nodes := range []int{2, 8} {
		b.Run(map[int]string{2: "2-nodes", 8: "8-nodes"}[nodes], func(b *testing.B) {
			blk := benchBlock(b, nodes)
			b.SetBytes(int64(8 * len(blk.u)))
			for b.Loop() {
				blk.Sweep()
			}
		})
	}
}

// BenchmarkCheckpoint is what a checkpoint costs the iteration: the
// block's state serialized (gridapp.WriteState) and copied for the writer.
func BenchmarkCheckpoint(b *testing.B) {
	for _, nodes := range []int{2, 8} {
		b.Run(map[int]string{2: "2-nodes", 8: "8-nodes"}[nodes], func(b *testing.B) {
			blk := benchBlock(b, nodes)
			var buf bytes.Buffer
			b.SetBytes(int64(8 * len(blk.u)))
			for b.Loop() {
				buf.Reset()
				if err := blk.Checkpoint(&buf); err != nil {
					b.Fatal(err)
				}
				_ = bytes.Clone(buf.Bytes())
			}
		})
	}
}

var _ gridapp.Checkpointer = (*Block)(nil)
