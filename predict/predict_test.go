package predict

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// twoNodes is a platform of two nodes, each in its own cluster or both in
// one, on a network of the given latency whose bandwidth moves one byte in
// half a second.
func twoNodes(latency time.Duration, split bool) Platform {
	nets := map[string]Network{"net": {Latency: latency, Bandwidth: 2}}
	if split {
		return Platform{Clusters: []Cluster{{Name: "a", Nodes: 1, Network: "net"}, {Name: "b", Nodes: 1, Network: "net"}},
			Between: "net", Networks: nets}
	}
	return Platform{Clusters: []Cluster{{Name: "a", Nodes: 2, Network: "net"}}, Networks: nets}
}

// unitModel: two points of one second each per sweep, one byte per link and
// iteration, four synchronous iterations, no spread, no overhead; an
// asynchronous run lasts f times 4 rounds of its slowest asynchronous link.
func unitModel(f float64) *Model {
	return &Model{Points: 2, PointSeconds: 1, LinkBytes: 1, SyncIterations: 4, Staleness: StalenessModel{Pooled: RoundsLine{A: f}}}
}

// TestPredictByHand checks the replay against timelines worked out by hand.
//
// sync: sweep 1 ends at 1, its send at 1.5 and the halo arrives at 1.75;
// every later sweep starts at the halo's arrival, so a sweep costs 1.75 and
// the fourth send ends at 1.5 + 3·1.75 = 6.75 with 3·0.25 idle.
// async: nothing waits, a sweep costs 1 + 0.5, four of them 6 with an
// update each: a round of 1.5 s and a halo age of 0; with f = 1.5 the run
// lasts 1.5 · 4 rounds = 9 s, 6 sweeps at 4/6 per second.
// async, 3 s latency: sends at sweeps 1 and 4 only (the others find the
// previous message in flight), the fourth ends at 5: a round of 5/2 s, a
// halo age of 4/2 − 1 = 1; with f = 1 the run lasts 4 rounds = 10 s, 8
// sweeps at 4/5 per second.
func TestPredictByHand(t *testing.T) {
	tests := []struct {
		name    string
		scheme  jobs.Scheme
		pl      Platform
		f       float64
		seconds float64
		idle    float64
		iters   float64
		stale   float64
	}{
		{"sync", jobs.Synchronous, twoNodes(250*time.Millisecond, false), 0, 6.75, 0.75, 4, 0},
		{"async", jobs.Asynchronous, twoNodes(250*time.Millisecond, false), 1.5, 9, 0, 6, 0},
		{"async stale", jobs.Asynchronous, twoNodes(3*time.Second, false), 1, 10, 0, 8, 1},
		{"hybrid across clusters is async", jobs.Hybrid, twoNodes(3*time.Second, true), 1, 10, 0, 8, 1},
		{"hybrid inside a cluster is sync", jobs.Hybrid, twoNodes(250*time.Millisecond, false), 1.5, 6.75, 0.75, 4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Predict(unitModel(tc.f), tc.pl, Job{Scheme: tc.scheme, Cores: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !near(p.Seconds, tc.seconds) || !near(p.IdleSeconds, tc.idle) || !near(p.MeanIterations, tc.iters) || !near(p.Staleness, tc.stale) {
				t.Errorf("got %.4g s, idle %.4g, %.4g iterations, staleness %.4g; want %g, %g, %g, %g",
					p.Seconds, p.IdleSeconds, p.MeanIterations, p.Staleness, tc.seconds, tc.idle, tc.iters, tc.stale)
			}
			if !near(p.T1Seconds, 8) || !near(p.Gain, 8/tc.seconds) {
				t.Errorf("t1 %g gain %g, want 8 and %g", p.T1Seconds, p.Gain, 8/tc.seconds)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// TestPredictSharedCores: four one-core nodes on a two-core host sweep
// twice as slowly; the single-node reference does not.
func TestPredictSharedCores(t *testing.T) {
	m := &Model{Points: 4, PointSeconds: 1, SyncIterations: 1}
	pl := Platform{Clusters: []Cluster{{Name: "a", Nodes: 4, Network: "net"}}, Networks: map[string]Network{"net": {Bandwidth: 1e12}}, SharedCores: 2}
	p, err := Predict(m, pl, Job{Scheme: jobs.Synchronous, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Seconds, 2) || !near(p.T1Seconds, 4) {
		t.Errorf("seconds %g t1 %g, want 2 and 4", p.Seconds, p.T1Seconds)
	}
}

func TestPredictErrors(t *testing.T) {
	pl := twoNodes(0, false)
	if _, err := Predict(&Model{Points: 2}, pl, Job{Scheme: jobs.Synchronous}); !errors.Is(err, ErrNoTrace) {
		t.Errorf("no sync iterations: %v", err)
	}
	pl.Clusters[0].Network = "missing"
	if _, err := Predict(unitModel(0), pl, Job{Scheme: jobs.Synchronous}); !errors.Is(err, ErrPlatform) {
		t.Errorf("unknown network: %v", err)
	}
	if _, err := Predict(unitModel(0), twoNodes(0, false), Job{Scheme: jobs.Synchronous, Graph: [][]int{{1}, {5}}}); !errors.Is(err, ErrPlatform) {
		t.Errorf("bad graph: %v", err)
	}
	if _, err := Build(&jobs.Results{}, Problem{App: "obstacle", N: 8, Eps: 1e-6}); !errors.Is(err, ErrNoTrace) {
		t.Errorf("empty store: %v", err)
	}
}

func TestSetNetwork(t *testing.T) {
	tests := []struct {
		edit    string
		bw      float64
		latency time.Duration
		bad     bool
	}{
		{"ethernet=10Gbit/s,100us", 1.25e9, 100 * time.Microsecond, false},
		{"ethernet=100Mbit/s", 12.5e6, 50 * time.Microsecond, false},
		{"unix=1.5GB/s,1us", 1.5e9, time.Microsecond, false},
		{"ethernet=10Gbps", 1.25e9, 50 * time.Microsecond, false},
		{"ethernet=10 Gbit/s,1ms", 1.25e9, time.Millisecond, false},
		{"ethernet=Gbps", 0, 0, true},
		{"ethernet", 0, 0, true},
		{"ethernet=fast", 0, 0, true},
		{"ethernet=-1Mbit/s", 0, 0, true},
		{"ethernet=1Mbit/s,soon", 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.edit, func(t *testing.T) {
			pl := Platform{Networks: DefaultNetworks()}
			err := pl.SetNetwork(tc.edit)
			if tc.bad {
				if !errors.Is(err, ErrPlatform) {
					t.Errorf("want ErrPlatform, got %v", err)
				}
				return
			}
			n := pl.Networks["ethernet"]
			if tc.edit[0] == 'u' {
				n = pl.Networks["unix"]
			}
			if err != nil || !near(n.Bandwidth, tc.bw) || n.Latency != tc.latency || n.Source != "set" {
				t.Errorf("%v: %+v", err, n)
			}
		})
	}
}
