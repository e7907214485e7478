package predict

import (
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// TestGroupSources: runs group by scheme (sync, async, hybrid) and node
// count, each group with its count and the range of its times and
// iterations.
func TestGroupSources(t *testing.T) {
	got := GroupSources([]Source{
		{ID: "a", Scheme: jobs.Hybrid, Nodes: 2, WallSeconds: 3, Iterations: 30},
		{ID: "b", Scheme: jobs.Synchronous, Nodes: 4, WallSeconds: 2, Iterations: 20},
		{ID: "c", Scheme: jobs.Synchronous, Nodes: 2, WallSeconds: 1, Iterations: 10},
		{ID: "d", Scheme: jobs.Synchronous, Nodes: 2, WallSeconds: 1.5, Iterations: 9},
		{ID: "e", Scheme: jobs.Asynchronous, Nodes: 2, WallSeconds: 4, Iterations: 40},
	})
	want := []SourceGroup{
		{Scheme: jobs.Synchronous, Nodes: 2, Runs: 2, MinWall: 1, MaxWall: 1.5, MinIterations: 9, MaxIterations: 10},
		{Scheme: jobs.Synchronous, Nodes: 4, Runs: 1, MinWall: 2, MaxWall: 2, MinIterations: 20, MaxIterations: 20},
		{Scheme: jobs.Asynchronous, Nodes: 2, Runs: 1, MinWall: 4, MaxWall: 4, MinIterations: 40, MaxIterations: 40},
		{Scheme: jobs.Hybrid, Nodes: 2, Runs: 1, MinWall: 3, MaxWall: 3, MinIterations: 30, MaxIterations: 30},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("group %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestGroupFit: the fit's runs group as the sources do, with the range and
// median of their measured factors and the mean of the rest.
func TestGroupFit(t *testing.T) {
	got := GroupFit([]FitPoint{
		{Scheme: jobs.Asynchronous, Nodes: 4, Round: 0.002, Measured: 0.5, Modelled: 0.6},
		{Scheme: jobs.Asynchronous, Nodes: 2, Round: 0.001, Crossing: 0.001, Measured: 0.9, Modelled: 0.7},
		{Scheme: jobs.Asynchronous, Nodes: 2, Round: 0.003, Crossing: 0.003, Measured: 0.3, Modelled: 0.7},
		{Scheme: jobs.Asynchronous, Nodes: 2, Round: 0.002, Crossing: 0.002, Measured: 0.4, Modelled: 0.7},
	})
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	g := got[0]
	if g.Nodes != 2 || g.Runs != 3 || g.MinMeasured != 0.3 || g.MaxMeasured != 0.9 || g.MedianMeasured != 0.4 ||
		!near(g.Round, 0.002) || !near(g.Crossing, 0.002) || !near(g.Modelled, 0.7) {
		t.Errorf("2 nodes: %+v", g)
	}
	if g := got[1]; g.Nodes != 4 || g.Runs != 1 || g.MedianMeasured != 0.5 || g.MinMeasured != 0.5 || g.MaxMeasured != 0.5 {
		t.Errorf("4 nodes: %+v", g)
	}
}
