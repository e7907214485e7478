package structured

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
	if got := a.CheckpointSize(); got != len(whole) {
		t.Errorf("CheckpointSize %d, Checkpoint wrote %d bytes", got, len(whole))
	}
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

// TestWriteFloatsBytes checks WriteFloats's bytes against the format
// written out (length, then each value's bits, little-endian) for lengths
// around its internal piece size, and that ReadFloats gives them back.
func TestWriteFloatsBytes(t *testing.T) {
	for _, n := range []int{0, 1, 1022, 1023, 1024, 1025, 3000} {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i)*1.5 - 7
		}
		if n > 0 {
			vals[n-1] = math.Copysign(0, -1)
		}
		want := binary.LittleEndian.AppendUint64(nil, uint64(n))
		for _, v := range vals {
			want = binary.LittleEndian.AppendUint64(want, math.Float64bits(v))
		}
		var buf bytes.Buffer
		if err := WriteFloats(&buf, vals); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("n = %d: the bytes differ from the format", n)
		}
		got, err := ReadFloats(&buf, n)
		if err != nil || len(got) != n {
			t.Fatalf("n = %d: read back %d values, %v", n, len(got), err)
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(vals[i]) {
				t.Fatalf("n = %d: value %d: %v, want %v", n, i, got[i], vals[i])
			}
		}
	}
}
