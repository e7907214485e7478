package predict

import (
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// slowBetween is a platform of the given clusters on a host of two shared
// cores: inside a cluster a network that moves a halo at once, between
// clusters one that takes 10 s for the model's 1-byte halo.
func slowBetween(clusters ...int) Platform {
	pl := Platform{Between: "wan", SharedCores: 2, Networks: map[string]Network{
		"lan": {Bandwidth: 1e12}, "wan": {Bandwidth: 0.1}}}
	for i, n := range clusters {
		pl.Clusters = append(pl.Clusters, Cluster{Name: string(rune('a' + i)), Nodes: n, Network: "lan"})
	}
	return pl
}

// ownCores gives each of pl's nodes a core of its own.
func ownCores(pl Platform) Platform {
	pl.SharedCores = 0
	return pl
}

// fastBetween makes pl's link between clusters move a halo in 1 s.
func fastBetween(pl Platform) Platform {
	pl.Networks["wan"] = Network{Bandwidth: 1}
	return pl
}

// slowerBetween makes pl's link between clusters move a halo in 100 s.
func slowerBetween(pl Platform) Platform {
	pl.Networks["wan"] = Network{Bandwidth: 0.01}
	return pl
}

// TestCrossing: an update reaches the link between the clusters after
// (hops + unsettled) · (c − 1) · a node's sweep CPU, hops the farthest
// node's distance to the nearer end of that link, unsettled the turns the
// cluster's mean squared distance to it (settle) exceeds those of a round,
// c the nodes per core, weighed by how far the link rather than its
// sender's sweeps sets its pace. The model's nodes own 1 s of sweep each
// and send 10 bytes per link at 0.1 s a byte: on 8 nodes (14 directed
// links) a sweep's CPU is (8 + 14) / 8 = 2.75 s, on 2 cores the 3 other
// nodes of a core take 8.25 s per hop, and a sweep takes 4 s against a
// message's 10 s on the link, a round of 14 s: (3 + 3.5 − 14/8.25) hops ·
// 8.25 · 0.6. Over a link 10 times slower a round of 104 s holds the
// cluster's 3.5 turns: 3 · 8.25 · (1 − 4/100).
func TestCrossing(t *testing.T) {
	tests := []struct {
		name   string
		scheme jobs.Scheme
		pl     Platform
		graph  [][]int
		hops   int
		settle float64
		want   float64 // seconds; < 0: (hops + unsettled) · (c − 1) · sweepCPU · linkShare
	}{
		{"one node per cluster: no hop", jobs.Asynchronous, slowBetween(1, 1), nil, 0, 0, 0},
		{"2 + 2", jobs.Asynchronous, slowBetween(2, 2), nil, 1, 0.5, -1},
		{"4 + 4 by hand", jobs.Asynchronous, slowBetween(4, 4), nil, 3, 3.5, (3 + 3.5 - 14/8.25) * 8.25 * 0.6},
		{"4 + 4 over a slower link: settled", jobs.Asynchronous, slowerBetween(slowBetween(4, 4)), nil, 3, 3.5, 3 * 8.25 * 0.96},
		{"4 + 4, the sweeps set the pace", jobs.Asynchronous, fastBetween(slowBetween(4, 4)), nil, 3, 3.5, 0},
		{"4 + 4 on cores of their own", jobs.Asynchronous, ownCores(slowBetween(4, 4)), nil, 3, 3.5, 0},
		{"8 + 8", jobs.Asynchronous, slowBetween(8, 8), nil, 7, 17.5, -1},
		{"3 + 1: the far end of the larger cluster", jobs.Asynchronous, slowBetween(3, 1), nil, 2, 1.25, -1},
		// 0-1-2 | 3 with 4 and 5 hanging from 3: node 0 is 2 hops from 2.
		{"the application's graph", jobs.Asynchronous, slowBetween(3, 3),
			[][]int{{1}, {0, 2}, {1, 3}, {2, 4, 5}, {3}, {3}}, 2, 7.0 / 6, -1},
		{"synchronous: none", jobs.Synchronous, slowBetween(4, 4), nil, 3, 3.5, 0},
		{"hybrid: in its lockstep", jobs.Hybrid, slowBetween(4, 4), nil, 3, 3.5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Model{Points: 8, PointSeconds: 1, LinkBytes: 1, ByteSeconds: 0.1, SyncIterations: 4,
				SweepLinkBytes: map[jobs.Scheme]LinkLoad{jobs.Asynchronous: {Inside: 10, Between: 10}}}
			r, err := newReplay(m, tc.pl, Job{Scheme: tc.scheme, Cores: 1, Graph: tc.graph})
			if err != nil {
				t.Fatal(err)
			}
			ends := r.run(4)
			from, to, ok := r.slowestLink(ends)
			if tc.scheme != jobs.Synchronous {
				if !ok || tc.pl.Clusters[0].Nodes != from && tc.pl.Clusters[0].Nodes != to {
					t.Fatalf("slowest link %d→%d (%v), want the one between the clusters", from, to, ok)
				}
				if hops, settle := r.distances(from, to); hops != tc.hops || !near(settle, tc.settle) {
					t.Errorf("hops %d, settle %g; want %d, %g", hops, settle, tc.hops, tc.settle)
				}
			}
			want := tc.want
			if want < 0 {
				wait := (r.cont - 1) * r.sweepCPU(m, tc.scheme)
				unsettled := max(0, tc.settle-r.round(ends)/wait)
				want = (float64(tc.hops) + unsettled) * wait * r.linkShare(from, to)
			}
			if got := r.crossing(m, tc.scheme, ends); !near(got, want) || tc.want < 0 && got <= 0 {
				t.Errorf("crossing %g s, want %g", got, want)
			}
		})
	}
}

// TestPredictCrossing works an asynchronous run out by hand: a point of
// 1 s CPU per node, no CPU for the sends, f = 1 and 4 synchronous
// iterations. The node next to the link between the clusters sweeps and
// waits 10 s for its send over it: a round of 11 s, 44 s, on 1 + 1 nodes
// and on 2 + 2 with cores of their own. On 2 + 2 sharing 2 cores a sweep
// takes 2 s, a round 12 s, and an update crosses one hop after the other
// node of its core has swept (1 s), weighed by 1 − 2/10: 4 · 12.8 s.
func TestPredictCrossing(t *testing.T) {
	for _, tc := range []struct {
		clusters []int
		shared   int
		want     float64
	}{{[]int{1, 1}, 2, 44}, {[]int{2, 2}, 0, 44}, {[]int{2, 2}, 2, 51.2}} {
		nodes := tc.clusters[0] + tc.clusters[1]
		m := &Model{Points: nodes, PointSeconds: 1, LinkBytes: 1, SyncIterations: 4, Staleness: StalenessModel{Pooled: RoundsLine{A: 1}}}
		pl := slowBetween(tc.clusters...)
		pl.SharedCores = tc.shared
		p, err := Predict(m, pl, Job{Scheme: jobs.Asynchronous, Cores: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !near(p.Seconds, tc.want) {
			t.Errorf("%v on %d cores: %g s, want %g", tc.clusters, tc.shared, p.Seconds, tc.want)
		}
	}
}

// TestStalenessLargestNodes: on a shared host the asynchronous factor is
// the mean over the runs of the largest traced node count (4 here), each
// replayed with its crossing; the 2-node runs, one node per cluster and no
// crossing, are listed in the fit but do not set the line; the hybrid
// scheme keeps its line through every node count, and so does the
// asynchronous one on cores of their own.
func TestStalenessLargestNodes(t *testing.T) {
	bytes := func(bool) uint64 { return 80 }
	busy := func(s float64) [3]float64 { return [3]float64{s, 0, 0} }
	res := &jobs.Results{Records: []jobs.RunRecord{
		clusterRun("sync2", jobs.Synchronous, []int{1, 1}, 100*time.Microsecond, constant(100), busy(0.1), bytes),
		clusterRun("sync4", jobs.Synchronous, []int{2, 2}, 100*time.Microsecond, constant(100), busy(0.1), bytes),
		// The 2-node runs took far longer per round than the 4-node ones.
		clusterRun("async2", jobs.Asynchronous, []int{1, 1}, 100*time.Microsecond, constant(300), busy(2), bytes),
		clusterRun("async4a", jobs.Asynchronous, []int{2, 2}, 100*time.Microsecond, constant(300), busy(0.2), bytes),
		clusterRun("async4b", jobs.Asynchronous, []int{2, 2}, 100*time.Microsecond, constant(300), busy(0.3), bytes),
		clusterRun("hybrid2", jobs.Hybrid, []int{1, 1}, 100*time.Microsecond, constant(300), busy(0.2), bytes),
		clusterRun("hybrid4", jobs.Hybrid, []int{2, 2}, 100*time.Microsecond, constant(300), busy(0.4), bytes),
	}}
	m, err := BuildWith(res, Problem{App: "obstacle", N: 8, Eps: 1e-6}, Options{SharedCores: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := m.Staleness
	var four []float64
	for _, p := range st.Fit {
		if p.Scheme == jobs.Asynchronous && p.Nodes == 4 {
			four = append(four, p.Measured)
			if p.Crossing <= 0 {
				t.Errorf("%s: no crossing on 2 + 2 nodes", p.ID)
			}
		}
		if p.Nodes == 2 && p.Crossing != 0 {
			t.Errorf("%s: crossing %g on 1 + 1 nodes", p.ID, p.Crossing)
		}
		if p.Scheme == jobs.Asynchronous && p.Nodes == 2 && p.Measured <= 2*st.Rounds(jobs.Asynchronous, 2) {
			t.Errorf("the 2-node run's factor %g should be far above the 4-node ones' %v", p.Measured, four)
		}
	}
	if len(four) != 2 || st.Lines[jobs.Asynchronous] != (RoundsLine{A: mean(four)}) || !near(st.Rounds(jobs.Asynchronous, 64), mean(four)) {
		t.Errorf("asynchronous line %+v, want the mean of the 4-node factors %v", st.Lines[jobs.Asynchronous], four)
	}
	if h := st.Lines[jobs.Hybrid]; h.B <= 0 {
		t.Errorf("hybrid line %+v: want its slope through 2 and 4 nodes", h)
	}
	// On cores of their own no round has a crossing: the line through
	// every node count, as before.
	m, err = BuildWith(res, Problem{App: "obstacle", N: 8, Eps: 1e-6}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []FitPoint
	for _, p := range m.Staleness.Fit {
		if p.Scheme == jobs.Asynchronous {
			all = append(all, p)
		}
		if p.Crossing != 0 {
			t.Errorf("%s: crossing %g on cores of its own", p.ID, p.Crossing)
		}
	}
	if l := m.Staleness.Lines[jobs.Asynchronous]; len(all) != 3 || l != fitLine(all) {
		t.Errorf("asynchronous line %+v on cores of their own, want %+v through %d runs", l, fitLine(all), len(all))
	}
}
