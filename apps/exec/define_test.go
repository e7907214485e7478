package exec_test

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/exec"
	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestDefineErrors: a job that leaves out what only the user can say (the
// program, enough items for its nodes) hears which parameter to set.
func TestDefineErrors(t *testing.T) {
	nodes := make([]gridapp.Node, 8)
	tests := map[string]struct {
		params map[string]string
		want   string
	}{
		"no program":   {map[string]string{}, "give its path in the program parameter"},
		"items unset":  {map[string]string{"program": "/bin/true"}, "items = 1 cannot be split among 8 nodes: set items"},
		"items short":  {map[string]string{"program": "/bin/true", "items": "5"}, "items = 5 cannot be split among 8 nodes"},
		"items enough": {map[string]string{"program": "/bin/true", "items": "8"}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v, err := gridapp.Parse(exec.App{}.Params(), tc.params)
			if err != nil {
				t.Fatal(err)
			}
			task, err := exec.App{}.Define(v, nodes)
			if tc.want == "" {
				if err != nil || len(task.Parts) != len(nodes) {
					t.Fatalf("Define: %d parts, %v", len(task.Parts), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Define: %v, want %q", err, tc.want)
			}
		})
	}
}
