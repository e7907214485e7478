package obstacle_test

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
)

// TestCheckpoints: slabs checkpointed after k iterations and restored into
// fresh slabs continue bit for bit.
func TestCheckpoints(t *testing.T) {
	app, _ := gridapp.Lookup(obstacle.Name)
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "12", "eps": "1e-8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ b, cores, at int }{{1, 1, 3}, {2, 2, 20}, {3, 2, 50}} {
		t.Run(fmt.Sprintf("b=%d/a=%d/k=%d", c.b, c.cores, c.at), func(t *testing.T) {
			if err := gridapp.CheckCheckpoints(app, v, nodes(c.b, c.cores), c.at); err != nil {
				t.Fatal(err)
			}
		})
	}
}
