package poisson

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/structured"
)

// TestCheckpoints: blocks checkpointed after k iterations and restored into
// fresh blocks (one core each) continue bit for bit (gridapp.CheckCheckpoints); structured.TestRestoreRefusesOtherBox
// checks that a block's state does not restore into another box.
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
			b, _ := structured.ParseBlocks(c.blocks, 3)
			if err := gridapp.CheckCheckpoints(app, v, nodes(b.Count(), c.cores), c.at); err != nil {
				t.Fatal(err)
			}
		})
	}
}
