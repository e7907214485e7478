package sparse

import (
	"fmt"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestCheckpoints: row blocks checkpointed after k iterations and restored
// into fresh blocks continue bit for bit, for both methods.
func TestCheckpoints(t *testing.T) {
	app, _ := gridapp.Lookup(Name)
	for _, method := range []Method{Jacobi, GaussSeidel} {
		for _, c := range [][3]int{{1, 1, 2}, {2, 2, 9}, {4, 1, 15}} {
			t.Run(fmt.Sprintf("%s/%d×%d/k=%d", method, c[0], c[1], c[2]), func(t *testing.T) {
				v := values(t, map[string]string{"matrix": abs(t, matrices[0]), "method": string(method), "eps": "1e-9"})
				if err := gridapp.CheckCheckpoints(app, v, nodes(c[0], c[1]), c[2]); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
