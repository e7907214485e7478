package jobs

import (
	"testing"
	"time"
)

func TestCommandLine(t *testing.T) {
	poisson := Spec{App: "poisson", Params: map[string]string{"n": "32", "blocks": "2x2x1"}, Scheme: Asynchronous,
		Nodes: NodeSelection{Clusters: []string{"alpha"}}, WallTime: 90 * time.Second}
	grouped := DefaultSpec()
	grouped.Groups = []Group{{Coordinator: "alpha-1", Workers: []string{"alpha-1"}}}
	matrix := Spec{App: "sparse", Params: map[string]string{"matrix": "my matrix.mtx"}, Nodes: NodeSelection{Any: 2}}
	tests := map[string]struct {
		spec  Spec
		want  string
		exact bool
	}{
		"default": {DefaultSpec(), "gridtui run --nodes 8", true},
		"poisson": {poisson, "gridtui run --app poisson --param blocks=2x2x1 --param n=32 --scheme async --cores 0 --wall-time 1m30s --nodes alpha", true},
		"obstacle": {Spec{App: "obstacle", Params: map[string]string{"n": "64", "eps": "1e-08"}, Scheme: Synchronous, Nodes: NodeSelection{Hosts: []string{"alpha-1", "beta-2"}}},
			"gridtui run --param n=64 --scheme sync --cores 0 --nodes alpha-1,beta-2", true},
		"groups": {grouped, "gridtui run --nodes 8", false},
		"quoted": {matrix, "gridtui run --app sparse --param 'matrix=my matrix.mtx' --cores 0 --nodes 2", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, exact := CommandLine(tc.spec)
			if got != tc.want || exact != tc.exact {
				t.Errorf("CommandLine = %q, %v; want %q, %v", got, exact, tc.want, tc.exact)
			}
		})
	}
}
