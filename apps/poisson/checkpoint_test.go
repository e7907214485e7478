package poisson

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestCheckpoints: blocks checkpointed after k iterations and restored into
// fresh blocks (one core each) continue bit for bit (gridapp.CheckCheckpoints).
func TestCheckpoints(t *testing.T) {
	app, _ := gridapp.Lookup(Name)
	for _, c := range []struct {
		blocks string
		cores  int
		at     int
	}{{"1x1x1", 1, 1}, {"2x1x1", 2, 17}, {"2x2x2", 1, 40}, {"3x1x2", 2, 5}} {
		t.Run(fmt.Sprintf("%s/a=%d/k=%d", c.blocks, c.cores, c.at), func(t *testing.T) {
			v, err := gridapp.Parse(app.Params(), map[string]string{"n": "11", "eps": "1e-6", "blocks": c.blocks})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := ParseBlocks(c.blocks)
			if err := gridapp.CheckCheckpoints(app, v, nodes(b.Count(), c.cores), c.at); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRestoreRefusesOtherBlock: a block's state does not restore into a
// block of another box.
func TestRestoreRefusesOtherBlock(t *testing.T) {
	p := Problem{N: 8, Eps: 1e-6}
	a, err := NewBlock(p, Box{gridapp.Range{Lo: 0, Hi: 4}, gridapp.Range{Lo: 0, Hi: 8}, gridapp.Range{Lo: 0, Hi: 8}}, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewBlock(p, Box{gridapp.Range{Lo: 0, Hi: 3}, gridapp.Range{Lo: 0, Hi: 8}, gridapp.Range{Lo: 0, Hi: 8}}, []int{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var buf bytes.Buffer
	if err := a.Checkpoint(&buf); err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(&buf); !errors.Is(err, gridapp.ErrState) {
		t.Fatalf("restore into another box: %v, want ErrState", err)
	}
}
