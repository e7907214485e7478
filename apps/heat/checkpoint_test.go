package heat

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestCheckpoints: tiles checkpointed inside a step, or right after one
// advanced, continue bit for bit through the remaining steps.
func TestCheckpoints(t *testing.T) {
	app, _ := gridapp.Lookup(Name)
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "11", "steps": "3", "dt": "2e-3", "eps": "1e-9", "blocks": "2x2"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := gridapp.RunLocal(app, v, nodes(4, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{1, 7, run.Iterations / 2, run.Iterations - 1} {
		t.Run(fmt.Sprintf("k=%d", at), func(t *testing.T) {
			if err := gridapp.CheckCheckpoints(app, v, nodes(4, 2), at); err != nil {
				t.Fatal(err)
			}
		})
	}
}
