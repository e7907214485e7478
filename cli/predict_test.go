package cli

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// tracedStore records a synchronous and an asynchronous traced two-node run
// of obstacle n = 16, ε = 1e-6 on the embedded grid.
func tracedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous} {
		rec := jobs.RunRecord{Job: jobs.RunConfig{App: "obstacle", N: 16, Eps: 1e-6, Scheme: s, Nodes: 2, Cores: 2,
			Grid: "alpha", Clusters: []string{"alpha"}, Inventory: jobs.InventoryEmbedded},
			Machine: jobs.Machine{Cores: 2}, WallSeconds: 0.5, Outcome: jobs.OutcomeOK}
		for rank := range 2 {
			tr := &jobs.NodeTrace{Points: 2048}
			for range 300 {
				tr.Sweeps.Add(time.Millisecond)
			}
			tr.Links = []jobs.LinkTrace{{Peer: 1 - rank, Network: "infiniband", Async: s != jobs.Synchronous,
				Sent: 300, Received: 200, BytesSent: 300 * 2056, BytesReceived: 300 * 2056}}
			rec.Nodes = append(rec.Nodes, jobs.NodeRecord{Name: "alpha-" + string(rune('1'+rank)), Cluster: "alpha", Rank: rank,
				Cores: 1, Iterations: 300, ComputeSeconds: 0.3, SendSeconds: 0.05, WaitSeconds: 0.05, Trace: tr})
		}
		if err := jobs.Append(dir, &rec); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runPredict(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newPredictCmd(&globalFlags{})
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestPredictCommand(t *testing.T) {
	dir := tracedStore(t)
	out, err := runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "8", "--net", "ethernet=10Gbit/s,100us")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Hosts named with a node set: four ranks, two in each cluster, in the
	// order named.
	out2, err := runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "beta-[1-2],alpha-[3-4]")
	if err != nil || !strings.Contains(out2, "4 nodes (beta 2 on infiniband, alpha 2 on infiniband; between clusters ethernet), 1 core per node") {
		t.Errorf("hosts: %v\n%s", err, out2)
	}
	// One cluster: no network between clusters to name.
	out2, err = runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "alpha-1,alpha-2", "--cores", "2")
	if err != nil || !strings.Contains(out2, "2 nodes (alpha 2 on infiniband), 2 cores per node\n") {
		t.Errorf("one cluster: %v\n%s", err, out2)
	}
	// More nodes than the inventory's 8: its two clusters grown alike, and said.
	out2, err = runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "16")
	if err != nil || !strings.Contains(out2, "16 nodes (alpha 8 on infiniband, beta 8 on infiniband;") ||
		!strings.Contains(out2, "what-if: 16 nodes, more than the inventory's 8") {
		t.Errorf("16 nodes: %v\n%s", err, out2)
	}
	for _, want := range []string{"8 nodes (alpha 4 on infiniband, beta 4 on infiniband; between clusters ethernet)",
		"\nsync ", "\nasync ", "\nhybrid ", "rests on 2 traced run(s)", "ethernet 100µs 10Gbit/s (set)", "staleness model",
		"\nfastest: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "4", "--scheme", "sync", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Predictions []struct {
			Scheme         string  `json:"scheme"`
			Seconds        float64 `json:"seconds"`
			MeanIterations float64 `json:"mean_iterations"`
		} `json:"predictions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Predictions) != 1 || rep.Predictions[0].Scheme != "sync" ||
		rep.Predictions[0].MeanIterations != 300 || rep.Predictions[0].Seconds <= 0 {
		t.Errorf("json: %v %+v\n%s", err, rep, out)
	}
}

// TestPredictNoTrace: with no traced run of the problem the command fails
// and says what to run first.
func TestPredictNoTrace(t *testing.T) {
	out, err := runPredict(t, "--data-dir", tracedStore(t), "--n", "24", "--eps", "1e-6")
	if err == nil || !strings.Contains(err.Error(), "no usable trace") || !strings.Contains(err.Error(), "gridtui run --n 24 --eps 1e-06") {
		t.Errorf("err %v\n%s", err, out)
	}
	_, err = runPredict(t, "--data-dir", tracedStore(t), "--n", "16", "--eps", "1e-6", "--max-trace-nodes", "1")
	if err == nil || !strings.Contains(err.Error(), "no usable trace") {
		t.Errorf("max-trace-nodes 1: %v", err)
	}
	if _, err := runPredict(t, "--data-dir", tracedStore(t), "--n", "16", "--eps", "1e-6", "--net", "ethernet=fast"); err == nil {
		t.Error("a bad --net was accepted")
	}
	// The run flags' errors name predict, with run's usage status.
	if _, err := runPredict(t, "--data-dir", tracedStore(t), "--n", "16", "--nodes", "0"); err == nil ||
		!strings.HasPrefix(err.Error(), "predict: --nodes 0") || exitCode(err) != 2 {
		t.Errorf("--nodes 0: %v (status %d)", err, exitCode(err))
	}
	// A network the platform does not have (a typo) is refused, naming those it has.
	if _, err := runPredict(t, "--data-dir", tracedStore(t), "--n", "16", "--eps", "1e-6", "--net", "etherent=1Gbit/s"); err == nil ||
		!strings.Contains(err.Error(), `"etherent": no such network here (its networks: ethernet, infiniband`) {
		t.Errorf("an unknown --net network: %v", err)
	}
}

// TestPredictAsyncOnly: with only an asynchronous run traced, the
// asynchronous schemes say the staleness fit needs a synchronous run too
// (not that no asynchronous run is traced), and no reason repeats the
// "predict:" prefix.
func TestPredictAsyncOnly(t *testing.T) {
	src := tracedStore(t)
	res, err := jobs.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range res.Records {
		if res.Records[i].Job.Scheme == jobs.Asynchronous {
			if err := jobs.Append(dir, &res.Records[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := runPredict(t, "--data-dir", dir, "--n", "16", "--eps", "1e-6", "--nodes", "4")
	if err == nil {
		t.Errorf("no scheme predicted, yet no error:\n%s", out)
	}
	if !strings.Contains(out, "needs a traced synchronous run") || strings.Contains(out, "no traced asynchronous") {
		t.Errorf("the asynchronous schemes do not say a synchronous run is missing:\n%s", out)
	}
	if strings.Contains(out, "predict: predict:") || strings.Contains(out, "no prediction: predict:") {
		t.Errorf("a reason repeats its prefix:\n%s", out)
	}
}

// TestPredictExamplesSplit: every example of predict's help asks for an
// obstacle problem its node count can split (one plane per node at least):
// the 64-node example of n = 48 could only fail.
func TestPredictExamplesSplit(t *testing.T) {
	cmd := newPredictCmd(&globalFlags{})
	for _, line := range strings.Split(cmd.Example, "\n") {
		f := strings.Fields(line)
		n, nodes := 0, 0
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "--n":
				n, _ = strconv.Atoi(f[i+1])
			case "--nodes":
				nodes, _ = strconv.Atoi(f[i+1])
			}
		}
		if n > 0 && nodes > n {
			t.Errorf("example %q: %d nodes cannot split n = %d", strings.TrimSpace(line), nodes, n)
		}
	}
}

// TestWriteStaleness: the hybrid law and each hybrid run's sweeps per
// round are written where the model has an exponent, not otherwise.
func TestWriteStaleness(t *testing.T) {
	m := &predict.Model{SyncIterations: 100, Staleness: predict.StalenessModel{Runs: 1, HybridAlpha: 0.4,
		Fit: []predict.FitPoint{{ID: "h", Scheme: jobs.Hybrid, Nodes: 4, Round: 0.02, Sweeps: 48.9, Measured: 0.21, Modelled: 0.2}}}}
	var b strings.Builder
	writeStaleness(&b, m)
	for _, want := range []string{"hybrid, in place of its line: f = L^-0.4", "hybrid 4 nodes, 1 run, round 20 ms, 48.9 sweeps per round: measured f 0.21, modelled 0.20"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	m.Staleness.HybridFloor = 0.19
	b.Reset()
	writeStaleness(&b, m)
	if want := "f = √(L^-0.4 · min(1, 1/L + 0.19))"; !strings.Contains(b.String(), want) {
		t.Errorf("with a floor, output lacks %q:\n%s", want, b.String())
	}
	m.Staleness.HybridAlpha = 0
	b.Reset()
	writeStaleness(&b, m)
	if strings.Contains(b.String(), "L^-") || strings.Contains(b.String(), "sweeps per round") {
		t.Errorf("the law is written without an exponent:\n%s", b.String())
	}
}

// TestVerdictText: the fastest scheme and its lead, or the schemes too
// close to it to call.
func TestVerdictText(t *testing.T) {
	for _, tc := range []struct {
		v    predict.Verdict
		want string
	}{
		{predict.Verdict{Fastest: jobs.Asynchronous, Next: jobs.Hybrid, Gap: 0.084}, "fastest: async, 8 % ahead of hybrid"},
		{predict.Verdict{Fastest: jobs.Synchronous, Next: jobs.Hybrid, Gap: 3}, "fastest: sync, hybrid takes 4.0× as long"},
		{predict.Verdict{Fastest: jobs.Asynchronous, Next: jobs.Hybrid, Gap: 0.02, Close: []jobs.Scheme{jobs.Hybrid}},
			"fastest: async, but hybrid within 5 % of it: too close to call (schemes predicted under 5 % apart ran in the predicted order 61 % of the time on the test harness)"},
		{predict.Verdict{Fastest: jobs.Synchronous, Next: jobs.Asynchronous, Gap: 0.02, Close: []jobs.Scheme{jobs.Asynchronous, jobs.Hybrid}},
			"fastest: sync, but async and hybrid within 5 % of it: too close to call"},
	} {
		if got := verdictText(&tc.v); !strings.HasPrefix(got, tc.want) {
			t.Errorf("verdict %+v: %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestCountRanks: a count fills the inventory's clusters in order; past
// the inventory's size every cluster grows in proportion to its own, the
// remainder going to the first clusters.
func TestCountRanks(t *testing.T) {
	inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "s", Clusters: []inventory.Cluster{
		{Name: "a", Hosts: make([]inventory.Host, 3)}, {Name: "empty"}, {Name: "b", Hosts: make([]inventory.Host, 1)}}}}}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{2, "a a"}, {3, "a a a"}, {4, "a a a b"}, {10, "a a a a a a a a b b"}, {12, "a a a a a a a a a b b b"},
	} {
		ranks, total := countRanks(tc.n, inv)
		if got := strings.Join(ranks, " "); got != tc.want || total != 4 {
			t.Errorf("%d nodes: %q of %d, want %q of 4", tc.n, got, total, tc.want)
		}
	}
	if ranks, total := countRanks(4, &inventory.Inventory{}); ranks != nil || total != 0 {
		t.Errorf("empty inventory: %v, %d", ranks, total)
	}
}
