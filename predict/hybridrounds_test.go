package predict

import (
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

func TestFitHybridRounds(t *testing.T) {
	pt := func(sc jobs.Scheme, sweeps, f float64) FitPoint {
		return FitPoint{Scheme: sc, Sweeps: sweeps, Measured: f}
	}
	law := func(l float64) float64 { return math.Pow(l, -0.4) }
	tests := []struct {
		name string
		pts  []FitPoint
		want float64
	}{
		{"none", nil, 0},
		{"the law through every point", []FitPoint{pt(jobs.Hybrid, 30, law(30)), pt(jobs.Hybrid, 40, law(40))}, 0.4},
		{"asynchronous points do not count", []FitPoint{pt(jobs.Hybrid, 30, law(30)), pt(jobs.Asynchronous, 30, 0.9)}, 0.4},
		{"one sweep a round or less says nothing", []FitPoint{pt(jobs.Hybrid, 1, 0.5), pt(jobs.Hybrid, 0.5, 0.2)}, 0},
		{"rounds above the synchronous count: no exponent", []FitPoint{pt(jobs.Hybrid, 8, 1.1), pt(jobs.Hybrid, 5, 1.2)}, 0},
		{"least squares in logs through (1, 1)", []FitPoint{pt(jobs.Hybrid, math.E, math.Exp(-0.2)), pt(jobs.Hybrid, math.E*math.E, math.Exp(-1.2))},
			(0.2 + 2*1.2) / 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if a := fitHybridRounds(tc.pts); !near(a, tc.want) {
				t.Errorf("α = %g, want %g", a, tc.want)
			}
		})
	}
}

func TestFitHybridFloor(t *testing.T) {
	pt := func(sc jobs.Scheme, sweeps, f float64) FitPoint {
		return FitPoint{Scheme: sc, Sweeps: sweeps, Measured: f}
	}
	tests := []struct {
		name string
		pts  []FitPoint
		want float64
	}{
		{"none", nil, 0},
		{"the mean of f − 1/L", []FitPoint{pt(jobs.Hybrid, 20, 0.35), pt(jobs.Hybrid, 40, 0.325)}, 0.3},
		{"asynchronous points and one sweep a round do not count",
			[]FitPoint{pt(jobs.Hybrid, 20, 0.35), pt(jobs.Asynchronous, 20, 0.9), pt(jobs.Hybrid, 1, 0.5)}, 0.3},
		{"never below 0", []FitPoint{pt(jobs.Hybrid, 2, 0.4)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if f := fitHybridFloor(tc.pts); !near(f, tc.want) {
				t.Errorf("f∞ = %g, want %g", f, tc.want)
			}
		})
	}
}

// TestHybridRounds: the factor is the geometric mean of the power law and
// the floor, so it lies between them; the floor is capped at one round per
// synchronous iteration; without a floor, the power law alone.
func TestHybridRounds(t *testing.T) {
	if f := hybridRounds(0.5, 0, 16); !near(f, 0.25) {
		t.Errorf("no floor: %g, want 16^−0.5 = 0.25", f)
	}
	if f := hybridRounds(0.5, 0.2, 16); !near(f, math.Sqrt(0.25*0.2625)) {
		t.Errorf("floor 0.2 at L = 16: %g, want √(0.25 · 0.2625)", f)
	}
	for _, tc := range []struct{ alpha, floor, l float64 }{{0.3, 0.33, 13.4}, {0.41, 0.19, 19.2}, {0.41, 0.19, 45}} {
		law, fl, f := math.Pow(tc.l, -tc.alpha), 1/tc.l+tc.floor, hybridRounds(tc.alpha, tc.floor, tc.l)
		if f < min(law, fl) || f > max(law, fl) {
			t.Errorf("%+v: %g outside the law %g and the floor %g", tc, f, law, fl)
		}
	}
	if f := hybridRounds(0.1, 0.9, 2); !near(f, math.Sqrt(math.Pow(2, -0.1))) {
		t.Errorf("floor above 1: %g, want the law's square root (the floor capped at 1)", f)
	}
	if f := hybridRounds(0.5, 0.2, 0.5); !near(f, 1) {
		t.Errorf("less than a sweep a round: %g, want 1", f)
	}
}

// TestHybridFactor: one traced lockstep run (2 nodes per core, 100 points
// per core, 1 ms an iteration of which 0.4 ms the sweep). On 50 points
// per core at 8 nodes per core, with 0.1 ms of CPU per node's sweep and
// sends, a lockstep iteration takes 0.2 + 0.6 + 6 · 0.1 = 1.4 ms; a round
// of 28 ms holds 20 of them and f = 20^−0.5. Without an exponent, or
// without a traced lockstep run, the line stays; more nodes per core, a
// slower lockstep, fewer sweeps per round: a larger factor.
func TestHybridFactor(t *testing.T) {
	m := &Model{Lockstep: []LockstepRun{{Nodes: 4, Points: 100, Contention: 2, IterationSeconds: 1e-3, SweepSeconds: 0.4e-3}},
		Staleness: StalenessModel{HybridAlpha: 0.5}}
	if it := m.lockstepTurns(50, 8, 0.1e-3); !near(it, 1.4e-3) {
		t.Fatalf("lockstep iteration %g s, want 1.4 ms", it)
	}
	if f := m.hybridFactor(0.3, 28e-3, 50, 8, 0.1e-3); !near(f, math.Pow(20, -0.5)) {
		t.Errorf("factor %g, want 20^−0.5 = %g", f, math.Pow(20, -0.5))
	}
	if f8, f4 := m.hybridFactor(0.3, 28e-3, 50, 8, 0.1e-3), m.hybridFactor(0.3, 28e-3, 50, 4, 0.1e-3); f8 <= f4 {
		t.Errorf("factor %g at 8 nodes per core, %g at 4: want it to grow with the nodes per core", f8, f4)
	}
	if f := m.hybridFactor(0.3, 0.5e-3, 50, 8, 0.1e-3); f != 1 {
		t.Errorf("factor %g with a round shorter than a lockstep iteration, want 1 (a synchronous run)", f)
	}
	noLaw := &Model{Lockstep: m.Lockstep}
	if f := noLaw.hybridFactor(0.3, 28e-3, 50, 8, 0.1e-3); f != 0.3 {
		t.Errorf("factor %g without an exponent, want the line's 0.3", f)
	}
	noLockstep := &Model{Staleness: m.Staleness}
	if f := noLockstep.hybridFactor(0.3, 28e-3, 50, 8, 0.1e-3); f != 0.3 {
		t.Errorf("factor %g without a traced lockstep run, want the line's 0.3", f)
	}
}

// TestHybridSweepsPerRound: each traced hybrid run's fit point carries
// its round over the time per iteration of its fastest cluster (clusters
// of one node too), the exponent is fitted on them, and a hybrid run's
// modelled factor is the law's.
func TestHybridSweepsPerRound(t *testing.T) {
	// The link between the clusters carries large halos: it sets the
	// round, longer than a sweep.
	bytes := func(between bool) uint64 { return map[bool]uint64{false: 80, true: 100000}[between] }
	res := &jobs.Results{Records: []jobs.RunRecord{
		clusterRun("sync2", jobs.Synchronous, []int{1, 1}, 10*time.Microsecond, constant(100), [3]float64{0.01, 0.001, 0.2}, bytes),
		clusterRun("sync4", jobs.Synchronous, []int{2, 2}, 10*time.Microsecond, constant(100), [3]float64{0.01, 0.001, 0.2}, bytes),
		clusterRun("hybrid2", jobs.Hybrid, []int{1, 1}, 10*time.Microsecond, constant(3000), [3]float64{0.03, 0.02, 0}, bytes),
		clusterRun("hybrid4", jobs.Hybrid, []int{2, 2}, 10*time.Microsecond, constant(2000), [3]float64{0.02, 0.05, 0}, bytes),
	}}
	m, err := BuildWith(res, Problem{App: "obstacle", N: 8, Eps: 1e-6}, Options{SharedCores: 2})
	if err != nil {
		t.Fatal(err)
	}
	var pts []FitPoint
	for _, p := range m.Staleness.Fit {
		if p.Scheme != jobs.Hybrid {
			continue
		}
		pts = append(pts, p)
		it := map[string]float64{"hybrid2": 0.05 / 3000, "hybrid4": 0.07 / 2000}[p.ID]
		if !near(p.Sweeps, p.Round/it) {
			t.Errorf("%s: %g sweeps per round, want round %g s over %g s", p.ID, p.Sweeps, p.Round, it)
		}
	}
	if len(pts) != 2 {
		t.Fatalf("hybrid fit points %+v, want 2", pts)

	}
	a := fitHybridRounds(pts)
	if a <= 0 || !near(m.Staleness.HybridAlpha, a) {
		t.Fatalf("α = %g, want %g > 0 (both runs took fewer rounds than the synchronous count: %+v)", m.Staleness.HybridAlpha, a, pts)
	}
	fl := fitHybridFloor(pts)
	if fl <= 0 || !near(m.Staleness.HybridFloor, fl) {
		t.Fatalf("f∞ = %g, want %g > 0", m.Staleness.HybridFloor, fl)
	}
	for _, p := range pts {
		if want := math.Sqrt(math.Pow(p.Sweeps, -a) * min(1, 1/p.Sweeps+fl)); !near(p.Modelled, want) {
			t.Errorf("%s: modelled %g, want √(L^−α · (1/L + f∞)) = %g", p.ID, p.Modelled, want)
		}
	}
	// A 16-node prediction rests on the law (8 nodes per core: a slower
	// lockstep, fewer sweeps per round, more rounds), not on the line.
	g, err := m.Graph(16)
	if err != nil {
		t.Fatal(err)
	}
	job := Job{Scheme: jobs.Hybrid, Cores: 1, Graph: g}
	pl := PlatformFor(res, m, 16)
	law, err := Predict(m, pl, job)
	if err != nil {
		t.Fatal(err)
	}
	line := *m
	line.Staleness.HybridAlpha = 0
	without, err := Predict(&line, pl, job)
	if err != nil {
		t.Fatal(err)
	}
	if law.Seconds == without.Seconds {
		t.Errorf("16-node hybrid prediction %g s with the law, the same without: the law is not used", law.Seconds)

	}
}
