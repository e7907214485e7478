package predict

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestPredictSchemes: every scheme of a 16-node job from the harness's
// recorded runs, side by side, with the runs it rests on; an asynchronous
// scheme without traced asynchronous runs is unavailable and says what to
// run; a problem without traces says what to run first.
func TestPredictSchemes(t *testing.T) {
	res, err := jobs.Load("testdata/harness-100mbit")
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{App: "obstacle", N: 48, Eps: 1e-6}
	out, err := PredictSchemes(res, Request{Problem: p, Nodes: 16, SharedCores: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Predictions) != 3 || len(out.Unavailable) != 0 || len(out.Model.Sources) == 0 || out.Platform.Nodes() != 16 {
		t.Fatalf("%d predictions, unavailable %v, %d sources, %d nodes", len(out.Predictions), out.Unavailable,
			len(out.Model.Sources), out.Platform.Nodes())
	}
	for i, s := range AllSchemes {
		if x := out.Predictions[i]; x.Scheme != s || x.Seconds <= 0 || x.MeanIterations <= 0 {
			t.Errorf("prediction %d: %+v", i, x)
		}
	}
	fastest := slices.MinFunc(out.Predictions, func(a, b Prediction) int { return cmp.Compare(a.Seconds, b.Seconds) })
	if v := out.Verdict; v == nil || v.Fastest != fastest.Scheme || v.Gap < 0 {
		t.Errorf("verdict %+v, want %s fastest", v, fastest.Scheme)
	}
	// Hybrid: two clusters of 8 ranks sweeping in lockstep, as many
	// iterations in both, more than the synchronous count (stale halos
	// between the clusters) and fewer than on 2 nodes (one per cluster);
	// the measured ones on 16 nodes were 1221 (docs/predict).
	if h, s := out.Predictions[2], out.Predictions[0]; h.MinIterations != h.MaxIterations ||
		h.MeanIterations <= s.MeanIterations || h.MeanIterations > 2*s.MeanIterations {
		t.Errorf("hybrid iterations %d/%.0f/%d against %.0f synchronous", h.MinIterations, h.MeanIterations, h.MaxIterations, s.MeanIterations)
	}
	// The 100 Mbit/s link between the clusters is measured from the
	// synchronous runs, well below nominal Ethernet.
	if eth := out.Platform.Networks["ethernet"]; eth.Source != "measured" || eth.Bandwidth < 5e6 || eth.Bandwidth > 12.5e6 {
		t.Errorf("ethernet %+v, want measured below 12.5 MB/s", eth)
	}
	what := out.Predictions[0].Seconds
	out, err = PredictSchemes(res, Request{Problem: p, Nodes: 16, SharedCores: 2, Schemes: []jobs.Scheme{jobs.Synchronous},
		Networks: []string{"ethernet=10Gbit/s,50us"}})
	if err != nil || len(out.Predictions) != 1 || out.Predictions[0].Seconds >= what/2 {
		t.Errorf("10 Gbit/s between the sites: %v %+v, want under half of %g s", err, out, what)
	}
	if _, err := PredictSchemes(res, Request{Problem: p, Nodes: 4, Networks: []string{"ethernet=fast"}}); !errors.Is(err, ErrPlatform) {
		t.Errorf("bad edit: %v", err)
	}

	syncOnly := &jobs.Results{}
	for _, r := range res.Records {
		if r.Job.Scheme == jobs.Synchronous {
			syncOnly.Records = append(syncOnly.Records, r)
		}
	}
	out, err = PredictSchemes(syncOnly, Request{Problem: p, Nodes: 8})
	if err != nil || len(out.Predictions) != 1 || !strings.Contains(out.Unavailable[jobs.Asynchronous], "--scheme async") {
		t.Errorf("sync traces only: %v, %+v", err, out)
	}
	_, err = PredictSchemes(res, Request{Problem: Problem{App: "heat", N: 32, Eps: 1e-6}, Nodes: 8})
	if !errors.Is(err, ErrNoTrace) || !strings.Contains(err.Error(), "gridtui run --app heat --param n=32") {
		t.Errorf("new application: %v", err)
	}
	if strings.Contains(err.Error(), "the store has traces") {
		t.Errorf("new application: names traces of another application: %v", err)
	}
	// Another tolerance of a traced application: the error names what the
	// store has traces of.
	_, err = PredictSchemes(res, Request{Problem: Problem{App: "obstacle", N: p.N, Eps: 1e-9}, Nodes: 8})
	if want := "(the store has traces of obstacle n = 48, ε = 1e-06; obstacle n = 64, ε = 1e-06)"; !errors.Is(err, ErrNoTrace) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("other ε: %v, want it to end %q", err, want)
	}
}

// TestCPUBound: on a host of two cores shared by eight nodes (four to a
// core), an asynchronous run lasts at least its sweeps per node, each the
// CPU of a sweep and of what its links send per sweep.
func TestCPUBound(t *testing.T) {
	base := Model{Points: 8, PointSeconds: 1, LinkBytes: 10, ByteSeconds: 0.1, SyncIterations: 4}
	tests := []struct {
		name     string
		edit     func(m *Model)
		clusters []int
		sweeps   float64
		want     float64
	}{
		// Per node a 1 s sweep and 1 s per link (10 bytes at 0.1 s); 14
		// links over 8 nodes.
		{"traced sweep, a halo per link", func(*Model) {}, []int{8}, 10, 10 * (8 + 14.0) / 8 * 4},
		{"no sweeps: no bound", func(*Model) {}, []int{8}, 0, 0},
		// The least traced time per point is the CPU of a sweep.
		{"core point seconds", func(m *Model) { m.CorePointSeconds = 0.5 }, []int{8}, 10, 10 * (4 + 14.0) / 8 * 4},
		// Links inside a cluster send 5 bytes per sweep, the two between
		// the clusters 1 (both kinds traced).
		{"traced bytes per sweep by kind", func(m *Model) {
			m.SweepLinkBytes = map[jobs.Scheme]LinkLoad{jobs.Asynchronous: {Inside: 5, Between: 1}}
		}, []int{4, 4}, 10, 10 * (8 + 12*0.5 + 2*0.1) / 8 * 4},
		// Only the between kind traced (runs of one node per cluster): the
		// links inside a cluster send as much.
		{"one kind traced", func(m *Model) {
			m.SweepLinkBytes = map[jobs.Scheme]LinkLoad{jobs.Asynchronous: {Between: 1}}
		}, []int{4, 4}, 10, 10 * (8 + 14*0.1) / 8 * 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := base
			tc.edit(&m)
			pl := Platform{Between: "net", Networks: map[string]Network{"net": {Bandwidth: 1e12}}, SharedCores: 2}
			for i, n := range tc.clusters {
				pl.Clusters = append(pl.Clusters, Cluster{Name: string(rune('a' + i)), Nodes: n, Network: "net"})
			}
			r, err := newReplay(&m, pl, Job{Scheme: jobs.Asynchronous, Cores: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.cpuBound(&m, jobs.Asynchronous, tc.sweeps); !near(got, tc.want) {
				t.Errorf("cpu bound %g, want %g", got, tc.want)
			}
		})
	}
}

// TestFitCPU: the CPU of a sweep is the least traced time per point (the
// 4-node run's sweeps waited for a core: twice as long), and the
// asynchronous links send per sweep what their traces show, by kind.
func TestFitCPU(t *testing.T) {
	bytes := func(between bool) uint64 {
		if between {
			return 20
		}
		return 100
	}
	recs := []jobs.RunRecord{
		clusterRun("sync2", jobs.Synchronous, []int{1, 1}, 64*time.Microsecond, constant(100), [3]float64{0.1, 0.1, 0.1}, bytes),
		clusterRun("async04", jobs.Asynchronous, []int{2, 2}, 128*time.Microsecond, constant(300), [3]float64{0.3, 0.1, 0.1}, bytes),
	}
	m := &Model{}
	m.fitCPU(recs)
	// 64 µs over 64 points; the chain of 2 + 2 has 4 directed links inside
	// the clusters and 2 between.
	if !near(m.CorePointSeconds, 1e-6) || m.SweepLinkBytes[jobs.Asynchronous] != (LinkLoad{Inside: 100, Between: 20}) {
		t.Errorf("core point seconds %g, link bytes %+v", m.CorePointSeconds, m.SweepLinkBytes)
	}
	if _, ok := m.SweepLinkBytes[jobs.Synchronous]; ok {
		t.Errorf("synchronous links send a halo per iteration: no per-sweep load, got %+v", m.SweepLinkBytes)
	}
}

// BenchmarkPredictSchemes1024 is the console panel's call for a 1024-node
// job: the model built from the harness's recorded runs (its staleness fit
// replays each of them), then every scheme on 512 + 512 nodes.
func BenchmarkPredictSchemes1024(b *testing.B) {
	res, err := jobs.Load("testdata/harness-100mbit")
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Problem: Problem{App: "obstacle", N: 64, Eps: 1e-6}, Nodes: 1024}
	for b.Loop() {
		out, err := PredictSchemes(res, req)
		if err != nil || len(out.Predictions) != 3 {
			b.Fatal(err, out)
		}
	}
}

// TestVerdict: the fastest scheme, the next one and its gap, and the
// schemes within CloseCall of the fastest, whatever order the predictions
// come in; no verdict on fewer than two.
func TestVerdict(t *testing.T) {
	p := func(s jobs.Scheme, secs float64) Prediction { return Prediction{Scheme: s, Seconds: secs} }
	tests := []struct {
		name string
		ps   []Prediction
		want *Verdict
	}{
		{"none", nil, nil},
		{"one", []Prediction{p(jobs.Synchronous, 2)}, nil},
		{"apart", []Prediction{p(jobs.Synchronous, 4), p(jobs.Asynchronous, 2), p(jobs.Hybrid, 2.2)},
			&Verdict{Fastest: jobs.Asynchronous, Next: jobs.Hybrid, Gap: 0.1}},
		{"one close", []Prediction{p(jobs.Synchronous, 4), p(jobs.Asynchronous, 2.08), p(jobs.Hybrid, 2)},
			&Verdict{Fastest: jobs.Hybrid, Next: jobs.Asynchronous, Gap: 0.04, Close: []jobs.Scheme{jobs.Asynchronous}}},
		{"both close", []Prediction{p(jobs.Synchronous, 1.42), p(jobs.Asynchronous, 1.46), p(jobs.Hybrid, 1.48)},
			&Verdict{Fastest: jobs.Synchronous, Next: jobs.Asynchronous, Gap: 1.46/1.42 - 1, Close: []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid}}},
		{"at the edge", []Prediction{p(jobs.Synchronous, 2), p(jobs.Hybrid, 2.1)},
			&Verdict{Fastest: jobs.Synchronous, Next: jobs.Hybrid, Gap: 0.05, Close: []jobs.Scheme{jobs.Hybrid}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := verdict(tc.ps)
			if (got == nil) != (tc.want == nil) {
				t.Fatalf("verdict %+v, want %+v", got, tc.want)
			}
			if got != nil && (got.Fastest != tc.want.Fastest || got.Next != tc.want.Next || !near(got.Gap, tc.want.Gap) ||
				!slices.Equal(got.Close, tc.want.Close)) {
				t.Errorf("verdict %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestOtherTraces: a problem without traces names at most maxOtherTraces
// traced problems of its application, smallest first, and counts the rest;
// runs that failed or carry no trace do not count.
func TestOtherTraces(t *testing.T) {
	res := &jobs.Results{}
	rec := func(app string, n int, eps float64, outcome string, trace *jobs.NodeTrace) jobs.RunRecord {
		return jobs.RunRecord{ID: fmt.Sprint(app, n, eps), Outcome: outcome,
			Job:   jobs.RunConfig{App: app, N: n, Eps: eps},
			Nodes: []jobs.NodeRecord{{Trace: trace}}}
	}
	tr := &jobs.NodeTrace{Points: 10, Sweeps: jobs.SweepHist{Count: 1, Seconds: 1}}
	for _, n := range []int{64, 16, 32, 48, 24, 40} {
		res.Records = append(res.Records, rec("obstacle", n, 1e-6, jobs.OutcomeOK, tr))
	}
	res.Records = append(res.Records, rec("obstacle", 8, 1e-6, jobs.OutcomeFailed, tr), rec("obstacle", 12, 1e-6, jobs.OutcomeOK, nil),
		rec("heat", 4, 1e-6, jobs.OutcomeOK, tr), rec("obstacle", 16, 1e-6, jobs.OutcomeOK, tr))
	got := otherTraces(res, Problem{App: "obstacle", N: 16, Eps: 1e-8})
	want := " (the store has traces of obstacle n = 16, ε = 1e-06; obstacle n = 24, ε = 1e-06; obstacle n = 32, ε = 1e-06; obstacle n = 40, ε = 1e-06; 2 more)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := otherTraces(res, Problem{App: "poisson", N: 16, Eps: 1e-8}); got != "" {
		t.Errorf("another application: %q", got)
	}
}

// TestCautions: an asynchronous or hybrid prediction whose traced runs
// are all of one node count, not the job's, says its growth with the node
// count is unknown and what to run; a synchronous one, one traced on two
// node counts, or one for the traced count says nothing.
func TestCautions(t *testing.T) {
	m := &Model{Sources: []Source{{Scheme: jobs.Synchronous, Nodes: 2}, {Scheme: jobs.Asynchronous, Nodes: 2},
		{Scheme: jobs.Asynchronous, Nodes: 2}, {Scheme: jobs.Hybrid, Nodes: 2}, {Scheme: jobs.Hybrid, Nodes: 4}}}
	ps := []Prediction{{Scheme: jobs.Synchronous}, {Scheme: jobs.Asynchronous}, {Scheme: jobs.Hybrid}}
	got := cautions(m, ps, 8, 0)
	want := "traced on 2 nodes only: how its iterations grow with the node count is unknown (taken as flat): run it on 4 nodes too"
	if len(got) != 1 || got[jobs.Asynchronous] != want {
		t.Errorf("8 nodes: %v", got)
	}
	if got := cautions(m, ps, 4, 0); got[jobs.Asynchronous] != strings.Replace(want, "on 4 nodes too", "on 3 nodes too", 1) {
		t.Errorf("4 nodes: %v", got)
	}
	if got := cautions(m, ps, 2, 0); got != nil {
		t.Errorf("the traced count: %v", got)
	}
}

// TestCautionsHybridSweeps: a hybrid prediction whose L lies more than
// farOutside times beyond the traced hybrid runs' range is cautioned as
// extrapolated; one inside, or a model without traced L, is not.
func TestCautionsHybridSweeps(t *testing.T) {
	m := &Model{Sources: []Source{{Scheme: jobs.Hybrid, Nodes: 2}, {Scheme: jobs.Hybrid, Nodes: 4}},
		Staleness: StalenessModel{Fit: []FitPoint{{Scheme: jobs.Hybrid, Sweeps: 5}, {Scheme: jobs.Hybrid, Sweeps: 10},
			{Scheme: jobs.Asynchronous, Sweeps: 1000}}}}
	for _, tc := range []struct {
		l    float64
		warn bool
	}{{50, true}, {40, false}, {1.25, false}, {1, true}, {0, false}} {
		got := cautions(m, []Prediction{{Scheme: jobs.Hybrid, SweepsPerRound: tc.l}}, 8, 0)
		if c := got[jobs.Hybrid]; (c != "") != tc.warn || tc.warn && !strings.Contains(c, "the traced hybrid runs 5–10") {
			t.Errorf("L = %g: %q, want a caution %v", tc.l, c, tc.warn)
		}
	}
	m.Staleness.Fit = nil
	if got := cautions(m, []Prediction{{Scheme: jobs.Hybrid, SweepsPerRound: 50}}, 8, 0); got != nil {
		t.Errorf("no traced L: %v", got)
	}
}

// TestCautionsAsyncRound: an asynchronous prediction whose round lies more
// than farOutside times beyond the traced asynchronous runs' rounds is
// cautioned as extrapolated; one inside is not.
func TestCautionsAsyncRound(t *testing.T) {
	m := &Model{Sources: []Source{{Scheme: jobs.Asynchronous, Nodes: 2}, {Scheme: jobs.Asynchronous, Nodes: 4}},
		Staleness: StalenessModel{Fit: []FitPoint{{Scheme: jobs.Asynchronous, Round: 1e-3}, {Scheme: jobs.Asynchronous, Round: 2e-3},
			{Scheme: jobs.Hybrid, Round: 1}}}}
	for _, tc := range []struct {
		round float64
		warn  bool
	}{{9e-3, true}, {8e-3, false}, {0.25e-3, false}, {0.2e-3, true}} {
		got := cautions(m, []Prediction{{Scheme: jobs.Asynchronous, RoundSeconds: tc.round}}, 8, 0)
		if c := got[jobs.Asynchronous]; (c != "") != tc.warn || tc.warn && !strings.Contains(c, "the traced asynchronous runs' 1–2 ms") {
			t.Errorf("round %g s: %q, want a caution %v", tc.round, c, tc.warn)
		}
	}
}
