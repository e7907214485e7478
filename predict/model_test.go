package predict

import (
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// record is a completed two-node run of obstacle n = 8 on the embedded
// grid (a 2-core console host): each node owns 256 points on one core,
// sweeps take 2 ms, each link sends 80 bytes per iteration.
func record(id string, scheme jobs.Scheme, iters int, received uint64, async bool) jobs.RunRecord {
	r := jobs.RunRecord{ID: id, Time: time.Unix(int64(len(id)), 0), Outcome: jobs.OutcomeOK, WallSeconds: 1,
		Machine: jobs.Machine{Cores: 2},
		Job:     jobs.RunConfig{App: "obstacle", N: 8, Eps: 1e-6, Scheme: scheme, Nodes: 2, Cores: 2, Inventory: jobs.InventoryEmbedded}}
	for rank := range 2 {
		tr := &jobs.NodeTrace{Points: 256}
		for range iters {
			tr.Sweeps.Add(2 * time.Millisecond)
		}
		tr.Links = []jobs.LinkTrace{{Peer: 1 - rank, Network: "infiniband", Async: async, Sent: uint64(iters),
			Received: received, BytesSent: uint64(80 * iters), BytesReceived: uint64(80 * iters)}}
		r.Nodes = append(r.Nodes, jobs.NodeRecord{Name: "n" + string(rune('0'+rank)), Cluster: "alpha", Rank: rank, Cores: 1,
			Iterations: iters, ComputeSeconds: 0.002 * float64(iters), SendSeconds: 0.1, WaitSeconds: 0.1, Trace: tr})
	}
	return r
}

func TestBuild(t *testing.T) {
	res := &jobs.Results{Records: []jobs.RunRecord{
		record("sync", jobs.Synchronous, 100, 100, false),
		// 200 sweeps with 100 updates received: halo age 1, ratio 2.
		record("async", jobs.Asynchronous, 200, 100, true),
		record("other problem", jobs.Synchronous, 50, 50, false),
	}}
	res.Records[2].Job.N = 16
	for i := range res.Records[0].Nodes {
		res.Records[0].Nodes[i].WaitSeconds = 1 // 10 ms per exchange: the replayed halos go stale
	}
	m, err := Build(res, Problem{App: "obstacle", N: 8, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sources) != 2 || m.SyncIterations != 100 || m.Points != 512 {
		t.Fatalf("sources %d, sync iterations %d, points %d", len(m.Sources), m.SyncIterations, m.Points)
	}
	// 2 ms per sweep for 256 points on one core, uncontended (2 cores, 2 nodes).
	if !near(m.PointSeconds, 0.002/256) || !near(m.LinkBytes, 80) {
		t.Errorf("point seconds %g link bytes %g", m.PointSeconds, m.LinkBytes)
	}
	// The async run's traces: 200 sweeps, 100 updates received, age 1; its
	// factor is its wall time less the overhead over 100 replayed rounds,
	// and one run's line is that factor.
	st := m.Staleness
	if !near(m.Sources[1].TraceStaleness, 1) || st.Runs != 1 || st.Fit[0].Round <= 0 ||
		!near(st.Fit[0].Measured, (1-m.Overhead)/(100*st.Fit[0].Round)) || !near(st.Fit[0].Modelled, st.Fit[0].Measured) ||
		!near(st.Rounds(jobs.Asynchronous, 64), st.Fit[0].Measured) {
		t.Errorf("staleness model %+v", st)
	}
	if d := m.ExchangeDelay; !near(d.Base, 0.01) || d.PerContention != 0 || !near(m.SchemePointSeconds[jobs.Synchronous], 0.002/256) {
		t.Errorf("exchange delay %+v (want 0.1 s of waits over 100 iterations), per-scheme %v", d, m.SchemePointSeconds)
	}
	// Wall 1 s, busiest node 0.2 + 1.1 s (sync) and 0.4 + 0.2 s (async).
	if !near(m.Overhead, (0+0.4)/2) {
		t.Errorf("overhead %g", m.Overhead)
	}
	for _, q := range m.Spread {
		if math.Abs(q-1) > 0.5 {
			t.Errorf("spread %v of constant sweeps", m.Spread)
			break
		}
	}
	pl := PlatformFor(res, m, 8)
	if pl.Nodes() != 8 || pl.SharedCores != 2 || pl.Clusters[0].Network != "infiniband" || pl.Networks["infiniband"].Source != "measured" {
		t.Errorf("platform %+v", pl)
	}
	// The synchronous run: 13 ms per iteration on its busiest node, less a
	// 2 ms sweep and the 10 ms exchange delay, leaves 1 ms for 80 bytes
	// after infiniband's default 5 µs latency.
	if bw := pl.Networks["infiniband"].Bandwidth; !near(bw, 80/(0.001-5e-6)) {
		t.Errorf("measured bandwidth %g", bw)
	}
}

func TestFitDelay(t *testing.T) {
	tests := []struct {
		name      string
		pts       [][2]float64
		base, per float64
		at3       float64
	}{
		{"none", nil, 0, 0, 0},
		{"one level", [][2]float64{{0, 1}, {0, 3}}, 2, 0, 2},
		{"two levels: the median", [][2]float64{{0, 1}, {1, 3}, {1, 4}}, 3, 0, 3},
		{"line", [][2]float64{{0, 1}, {1, 3}, {2, 5}}, 1, 2, 5},
		{"falling is clamped at 0", [][2]float64{{0, 3}, {1, 1}, {2, -1}}, 3, -2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := fitDelay(tc.pts)
			if !near(d.Base, tc.base) || !near(d.PerContention, tc.per) || !near(d.At(3), tc.at3) {
				t.Errorf("%+v at 3 = %g, want %g + %g·(c−1), %g", d, d.At(3), tc.base, tc.per, tc.at3)
			}
		})
	}
}

// BenchmarkPredict1024 predicts a 1024-node job of 2146 synchronous
// iterations on two clusters, each scheme.
func BenchmarkPredict1024(b *testing.B) {
	m := &Model{Points: 64 * 64 * 64, PointSeconds: 1e-8, LinkBytes: 64 * 64 * 8, SyncIterations: 2146,
		Spread: []float64{0.9, 1, 1, 1.1}, Staleness: StalenessModel{Pooled: RoundsLine{A: 1, B: 0.2}}}
	pl := Platform{Clusters: []Cluster{{Name: "a", Nodes: 512, Network: "infiniband"}, {Name: "b", Nodes: 512, Network: "infiniband"}},
		Between: "ethernet", Networks: DefaultNetworks()}
	for b.Loop() {
		for _, s := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid} {
			if _, err := Predict(m, pl, Job{Scheme: s, Cores: 1}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestProbeLatency: a network's latency is the least pre-flight handshake
// of the traced links over it, over four (two round trips), shown as
// "probe"; a handshake longer than the network's whole exchange was slowed
// by something else and is not taken.
func TestProbeLatency(t *testing.T) {
	tests := []struct {
		name       string
		handshakes []uint64 // of the synchronous run's two links, µs
		latency    time.Duration
		source     string
	}{
		{"none traced: the default", nil, 5 * time.Microsecond, ""},
		{"the least over four", []uint64{400, 900}, 100 * time.Microsecond, "probe"},
		// The exchange is 1 ms (13 ms per iteration less the 2 ms sweep and
		// the 10 ms delay): 8 ms of handshake, 2 ms of latency, is too long.
		{"longer than the exchange", []uint64{8000}, 5 * time.Microsecond, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &jobs.Results{Records: []jobs.RunRecord{record("sync", jobs.Synchronous, 100, 100, false)}}
			for i := range res.Records[0].Nodes {
				res.Records[0].Nodes[i].WaitSeconds = 1
				if i < len(tc.handshakes) {
					res.Records[0].Nodes[i].Trace.Links[0].HandshakeMicros = tc.handshakes[i]
				}
			}
			m, err := Build(res, Problem{App: "obstacle", N: 8, Eps: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			ib := PlatformFor(res, m, 8).Networks["infiniband"]
			if ib.Latency != tc.latency || ib.LatencySource != tc.source || ib.Source != "measured" {
				t.Errorf("infiniband %+v, want latency %v from %q", ib, tc.latency, tc.source)
			}
			// The bandwidth is fitted after the latency: the exchange less it.
			if want := 80 / (0.001 - tc.latency.Seconds()); !near(ib.Bandwidth, want) {
				t.Errorf("bandwidth %g, want %g", ib.Bandwidth, want)
			}
		})
	}
}
