package predict

import (
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"

	_ "github.com/gridtui/gridtui/apps/obstacle"
	_ "github.com/gridtui/gridtui/apps/poisson"
)

// TestTopologyOf: the obstacle problem splits into a chain of slabs, the
// Poisson problem on 8 nodes into 2×2×2 blocks (three neighbours each); a
// node count the problem cannot be split over is an error naming it.
func TestTopologyOf(t *testing.T) {
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "16", "eps": "1e-6"}}
	top, err := TopologyOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := top(4)
	if err != nil || !slices.EqualFunc(g, Chain(4), slices.Equal[[]int]) {
		t.Errorf("obstacle on 4 nodes: %v %v, want a chain", g, err)
	}
	if _, err := top(32); err == nil || !strings.Contains(err.Error(), "obstacle") {
		t.Errorf("obstacle n = 16 on 32 nodes: %v", err)
	}
	top, err = TopologyOf(jobs.Spec{App: "poisson", Params: map[string]string{"n": "16"}})
	if err != nil {
		t.Fatal(err)
	}
	g, err = top(8)
	if err != nil {
		t.Fatal(err)
	}
	for i, nb := range g {
		if len(nb) != 3 {
			t.Errorf("poisson on 8 nodes: rank %d has neighbours %v, want 3 (2×2×2 blocks)", i, nb)
		}
	}
}
