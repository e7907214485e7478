package predict

import (
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// clusterRun is a completed run of obstacle n = 8 on a host of 2 shared
// cores: clusters lists the nodes of each cluster; every node owns 64
// points, did iters(rank) sweeps of the given time each, and spent busy's
// seconds computing, sending and waiting; links join neighbours in a
// chain (the scheme's modes: hybrid's asynchronous between clusters), each
// sending bytes(between clusters) per iteration.
func clusterRun(id string, scheme jobs.Scheme, clusters []int, sweep time.Duration, iters func(rank int) int,
	busy [3]float64, bytes func(between bool) uint64) jobs.RunRecord {
	r := jobs.RunRecord{ID: id, Time: time.Unix(int64(len(id)), 0), Outcome: jobs.OutcomeOK, WallSeconds: busy[0] + busy[1] + busy[2] + 0.1,
		Machine: jobs.Machine{Cores: 2}, Job: jobs.RunConfig{App: "obstacle", N: 8, Eps: 1e-6, Scheme: scheme}}
	var cluster []string
	for c, n := range clusters {
		for range n {
			cluster = append(cluster, string(rune('a'+c)))
		}
	}
	r.Job.Nodes, r.Job.Cores = len(cluster), len(cluster)
	for rank, cl := range cluster {
		it := iters(rank)
		tr := &jobs.NodeTrace{Points: 64}
		for range it {
			tr.Sweeps.Add(sweep)
		}
		for _, peer := range []int{rank - 1, rank + 1} {
			if peer < 0 || peer >= len(cluster) {
				continue
			}
			between := cluster[peer] != cl
			async := scheme == jobs.Asynchronous || scheme == jobs.Hybrid && between
			tr.Links = append(tr.Links, jobs.LinkTrace{Peer: peer, Network: "net", Async: async, Sent: uint64(it), Received: uint64(it),
				BytesSent: bytes(between) * uint64(it), BytesReceived: bytes(between) * uint64(it)})
		}
		r.Nodes = append(r.Nodes, jobs.NodeRecord{Name: "n" + string(rune('0'+rank)), Cluster: cl, Rank: rank, Cores: 1,
			Iterations: it, ComputeSeconds: busy[0], SendSeconds: busy[1], WaitSeconds: busy[2], Trace: tr})
	}
	return r
}

func constant(n int) func(int) int { return func(int) int { return n } }

// TestHybridIterations: the synchronous runs do 100 iterations on every
// node count; a 2-node hybrid run (one node per cluster) did 500 per node,
// an excess of 4 over clusters of one; a 4-node one (two per cluster) 300,
// an excess of 2 over clusters of two: a = 4 both ways. On 16 nodes, 8
// per cluster, a rank does 100 · (1 + 4/8) = 150; on 1024 nodes in two
// clusters 100 · (1 + 4/512); on 3 + 1 nodes 100 · (1 + 4/3) and 500.
// The old line in log₂(nodes) through 500 and 300 fell to 1 at 16 nodes.
func TestHybridIterations(t *testing.T) {
	bytes := func(bool) uint64 { return 80 }
	res := &jobs.Results{Records: []jobs.RunRecord{
		clusterRun("sync2", jobs.Synchronous, []int{1, 1}, time.Millisecond, constant(100), [3]float64{0.1, 0.1, 0.1}, bytes),
		clusterRun("sync04", jobs.Synchronous, []int{2, 2}, time.Millisecond, constant(100), [3]float64{0.1, 0.1, 0.1}, bytes),
		clusterRun("hybrid2", jobs.Hybrid, []int{1, 1}, time.Millisecond, constant(500), [3]float64{0.5, 0.1, 0.1}, bytes),
		clusterRun("hybrid04", jobs.Hybrid, []int{2, 2}, time.Millisecond, constant(300), [3]float64{0.3, 0.1, 0.1}, bytes),
	}}
	m, err := BuildWith(res, Problem{App: "obstacle", N: 8, Eps: 1e-6}, Options{SharedCores: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.HybridExcess, 4) {
		t.Fatalf("hybrid excess %g, want 4", m.HybridExcess)
	}
	tests := []struct {
		clusters           []int
		minIt, maxIt, mean float64
	}{
		{[]int{8, 8}, 150, 150, 150},
		{[]int{512, 512}, 100 * (1 + 4.0/512), 100 * (1 + 4.0/512), 100 * (1 + 4.0/512)},
		{[]int{3, 1}, 100 * (1 + 4.0/3), 500, (3*100*(1+4.0/3) + 500) / 4},
	}
	for _, tc := range tests {
		pl := Platform{Between: "net", Networks: map[string]Network{"net": {Latency: time.Microsecond, Bandwidth: 1e9}}}
		for i, n := range tc.clusters {
			pl.Clusters = append(pl.Clusters, Cluster{Name: string(rune('a' + i)), Nodes: n, Network: "net"})
		}
		p, err := Predict(m, pl, Job{Scheme: jobs.Hybrid, Cores: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.MinIterations != int(tc.minIt+0.5) || p.MaxIterations != int(tc.maxIt+0.5) || math.Abs(p.MeanIterations-tc.mean) > 1e-6 {
			t.Errorf("clusters %v: iterations %d/%.2f/%d, want %.0f/%.2f/%.0f", tc.clusters,
				p.MinIterations, p.MeanIterations, p.MaxIterations, tc.minIt, tc.mean, tc.maxIt)
		}
	}
}

// TestLockstep: only the 4-node hybrid run has a cluster of two, so it is
// the one lockstep run: 0.5 s busy over 300 iterations per node, of which
// 0.3 s computing; 4 nodes on 2 cores, contention 2. On 16 nodes of a
// quarter of the points each, contention 8: the sweep keeps its time (a
// quarter of the points, four times the contention), the rest of the
// iteration takes four times as long.
func TestLockstep(t *testing.T) {
	bytes := func(bool) uint64 { return 80 }
	recs := []jobs.RunRecord{
		clusterRun("hybrid2", jobs.Hybrid, []int{1, 1}, time.Millisecond, constant(500), [3]float64{0.5, 0.1, 0.1}, bytes),
		clusterRun("hybrid04", jobs.Hybrid, []int{2, 2}, time.Millisecond, constant(300), [3]float64{0.3, 0.1, 0.1}, bytes),
		clusterRun("async04", jobs.Asynchronous, []int{2, 2}, time.Millisecond, constant(300), [3]float64{0.3, 0.1, 0.1}, bytes),
	}
	m := &Model{SharedCores: 2}
	m.fitLockstep(recs)
	want := LockstepRun{Nodes: 4, Points: 64, Contention: 2, IterationSeconds: 0.5 / 300, SweepSeconds: 0.3 / 300}
	if len(m.Lockstep) != 1 || m.Lockstep[0] != want {
		t.Fatalf("lockstep runs %+v, want %+v", m.Lockstep, want)
	}
	if got, want := m.lockstepSeconds(16, 8), 0.3/300+0.2/300*4; !near(got, want) {
		t.Errorf("lockstep iteration on 16 nodes: %g s, want %g", got, want)
	}
	if got := (&Model{}).lockstepSeconds(16, 8); got != 0 {
		t.Errorf("no lockstep run: %g s, want 0", got)
	}
}

// TestLockstepHeldBack: in a 4-node hybrid run the first cluster did 100
// iterations, held back by its sends over the link between the clusters,
// the second 300 in the same 0.5 s: the lockstep on the host's cores is
// the second cluster's, 0.5 s over 300 iterations (not over the mean 200,
// nor the first cluster's 100).
func TestLockstepHeldBack(t *testing.T) {
	bytes := func(bool) uint64 { return 80 }
	iters := func(rank int) int { return []int{100, 100, 300, 300}[rank] }
	m := &Model{SharedCores: 2}
	m.fitLockstep([]jobs.RunRecord{clusterRun("hybrid04", jobs.Hybrid, []int{2, 2}, time.Millisecond, iters, [3]float64{0.3, 0.1, 0.1}, bytes)})
	want := LockstepRun{Nodes: 4, Points: 64, Contention: 2, IterationSeconds: 0.5 / 300, SweepSeconds: 0.3 / 300}
	if len(m.Lockstep) != 1 || !near(m.Lockstep[0].IterationSeconds, want.IterationSeconds) || !near(m.Lockstep[0].SweepSeconds, want.SweepSeconds) {
		t.Fatalf("lockstep runs %+v, want %+v", m.Lockstep, want)
	}
	// A cluster of one node beside a cluster of three: only the three
	// sweep in lockstep.
	iters = func(rank int) int { return []int{500, 200, 200, 200}[rank] }
	m.fitLockstep([]jobs.RunRecord{clusterRun("hybrid13", jobs.Hybrid, []int{1, 3}, time.Millisecond, iters, [3]float64{0.3, 0.1, 0.1}, bytes)})
	if len(m.Lockstep) != 1 || !near(m.Lockstep[0].IterationSeconds, 0.5/200) {
		t.Errorf("1 + 3 nodes: lockstep runs %+v, want 0.5/200 s per iteration", m.Lockstep)
	}
}

// TestHybridLockstepTime: a hybrid run lasts at least its iterations of
// lockstep, however fast the link between the clusters is.
func TestHybridLockstepTime(t *testing.T) {
	m := &Model{Points: 1600, PointSeconds: 1e-9, LinkBytes: 1, SyncIterations: 100, SyncLine: RoundsLine{A: 100},
		Staleness: StalenessModel{Pooled: RoundsLine{A: 0.1}}, HybridExcess: 4,
		Lockstep: []LockstepRun{{Nodes: 4, Points: 400, Contention: 1, IterationSeconds: 0.01, SweepSeconds: 0.002}}}
	pl := Platform{Clusters: []Cluster{{Name: "a", Nodes: 8, Network: "net"}, {Name: "b", Nodes: 8, Network: "net"}}, Between: "net",
		Networks: map[string]Network{"net": {Latency: time.Microsecond, Bandwidth: 1e12}}}
	p, err := Predict(m, pl, Job{Scheme: jobs.Hybrid, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 150 iterations per rank, each a sweep of a quarter of the points
	// (0.5 ms) and 8 ms of exchange, no host shared.
	if want := 150 * (0.002/4 + 0.008); !near(p.Seconds, want) || p.MeanIterations != 150 {
		t.Errorf("hybrid %.4f s, %.0f iterations; want %.4f s, 150", p.Seconds, p.MeanIterations, want)
	}
}
