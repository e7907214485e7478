package structured

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestCheckpointRoundTrip: blocks checkpointed after k sweeps and restored
// into fresh blocks (one core each) continue bit for bit as the
// uninterrupted run does.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, c := range []struct {
		dims, ghost int
		blocks      string
		at          int
	}{{2, 1, "2x2", 3}, {3, 2, "2x1x2", 2}, {1, 1, "3", 4}} {
		t.Run(fmt.Sprintf("%dD/%s/k=%d", c.dims, c.blocks, c.at), func(t *testing.T) {
			app := wideApp(c.dims, c.ghost)
			v, err := gridapp.Parse(app.Params(), map[string]string{"sweeps": "9", "blocks": c.blocks})
			if err != nil {
				t.Fatal(err)
			}
			want := wideSerial(app, v)
			b, _ := ParseBlocks(c.blocks, c.dims)
			task, err := app.Define(v, make([]gridapp.Node, b.Count()))
			if err != nil {
				t.Fatal(err)
			}
			parts := make([]*Block, b.Count())
			for r, ps := range task.Parts {
				p, err := app.NewPart(v, gridapp.Subtask{Rank: r, Ranks: len(parts), Neighbours: ps.Neighbours, Cores: 2, Spec: ps.Spec})
				if err != nil {
					t.Fatal(err)
				}
				parts[r] = p.(*Block)
				defer p.Close()
			}
			iterate(task, parts, c.at)
			for r, ps := range task.Parts {
				var buf bytes.Buffer
				if err := parts[r].Checkpoint(&buf); err != nil {
					t.Fatal(err)
				}
				p, err := app.NewPart(v, gridapp.Subtask{Rank: r, Ranks: len(parts), Neighbours: ps.Neighbours, Cores: 1, Spec: ps.Spec})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if err := p.(*Block).Restore(&buf); err != nil {
					t.Fatal(err)
				}
				parts[r] = p.(*Block)
			}
			iterate(task, parts, 9-c.at)
			results := make([][]float64, len(parts))
			for r := range parts {
				results[r] = parts[r].Result()
			}
			s, _ := app.Setup(v)
			sol, err := Gather(s, task, results)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if sol.Levels[0][i] != want[i] {
					t.Fatalf("value %d: %v after the restore, serial %v", i, sol.Levels[0][i], want[i])
				}
			}
		})
	}
}

// iterate runs k synchronous iterations of the blocks (exchange, sweep).
func iterate(task gridapp.Task, parts []*Block, k int) {
	for range k {
		for r, p := range parts {
			for i, q := range task.Parts[r].Neighbours {
				j := 0
				for j < len(task.Parts[q].Neighbours) && task.Parts[q].Neighbours[j] != r {
					j++
				}
				copy(p.Halo(i), parts[q].Outgoing(j))
				p.Received(i)
			}
		}
		for _, p := range parts {
			p.Sweep()
		}
	}
}

// TestRestoreRefusesOtherBox: a block's state does not restore into a
// block of another box, nor from a truncated stream.
func TestRestoreRefusesOtherBox(t *testing.T) {
	g := Grid{N: []int{8, 8, 8}, Ghost: 1}
	a, err := newBlock(g, Box{X: Range{Lo: 0, Hi: 4}, Y: Range{Hi: 8}, Z: Range{Hi: 8}}, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.steps = 1
	b, err := newBlock(g, Box{X: Range{Lo: 0, Hi: 3}, Y: Range{Hi: 8}, Z: Range{Hi: 8}}, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.steps = 1
	var buf bytes.Buffer
	if err := a.Checkpoint(&buf); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	if err := b.Restore(bytes.NewReader(whole)); !errors.Is(err, ErrState) {
		t.Errorf("restore into another box: %v, want ErrState", err)
	}
	if err := a.Restore(bytes.NewReader(whole[:len(whole)-3])); !errors.Is(err, ErrState) {
		t.Errorf("restore from a truncated stream: %v, want ErrState", err)
	}
	if err := a.Restore(bytes.NewReader(whole)); err != nil {
		t.Errorf("restore into the same box: %v", err)
	}
}
