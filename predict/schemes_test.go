package predict

import (
	"errors"
	"strings"
	"testing"

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
}

// TestCPUBound: on a host of two cores shared by eight nodes, an
// asynchronous run lasts at least its fitted sweeps per node, each a sweep
// and a halo send per link, four nodes to a core.
func TestCPUBound(t *testing.T) {
	m := &Model{Points: 8, PointSeconds: 1, LinkBytes: 10, ByteSeconds: 0.1, SyncIterations: 4,
		AsyncSweeps: map[jobs.Scheme]RoundsLine{jobs.Asynchronous: {A: 10}}}
	pl := Platform{Clusters: []Cluster{{Name: "a", Nodes: 8, Network: "net"}}, Networks: map[string]Network{"net": {Bandwidth: 1e12}}, SharedCores: 2}
	r, err := newReplay(m, pl, Job{Scheme: jobs.Asynchronous, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Per node: a 1 s sweep and 1 s per link (10 bytes at 0.1 s); 14 links
	// over 8 nodes; 10 sweeps each, contention 4.
	if got, want := r.cpuBound(m, jobs.Asynchronous), 10*(8+14.0)/8*4; !near(got, want) {
		t.Errorf("cpu bound %g, want %g", got, want)
	}
	if got := r.cpuBound(m, jobs.Hybrid); got != 0 {
		t.Errorf("no hybrid sweeps fitted: bound %g, want 0", got)
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
