package predict

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// oneNodeRecord is record's run on one node of cluster alpha: it traces no
// link, so no network.
func oneNodeRecord(id string) jobs.RunRecord {
	r := record(id, jobs.Synchronous, 100, 100, false)
	r.Job.Nodes = 1
	r.Nodes = r.Nodes[:1]
	r.Nodes[0].Trace.Links = nil
	return r
}

// TestUntracedClusterTakesTheInventorysNetwork: after a run of one node
// (no link traced), a prediction on more nodes of that cluster puts it on
// the network the inventory gives it, not on Ethernet, so that a what-if
// edits the network the job would use; a traced link still wins.
func TestUntracedClusterTakesTheInventorysNetwork(t *testing.T) {
	res := &jobs.Results{Records: []jobs.RunRecord{oneNodeRecord("one")}}
	prob := Problem{App: "obstacle", N: 8, Eps: 1e-6}
	inside := map[string]string{"alpha": "infiniband", "beta": "myrinet"}
	traced, err := PredictSchemes(res, Request{Problem: prob, Nodes: 4, Inside: inside, Schemes: []jobs.Scheme{}})
	if err != nil {
		t.Fatal(err)
	}
	if c := traced.Platform.Clusters; len(c) != 1 || c[0].Network != "infiniband" || c[0].NetworkSource != SourceInventory {
		t.Errorf("resized traced platform: %+v, want alpha on infiniband (inventory)", c)
	}
	cl := ClustersOf([]string{"alpha", "alpha", "beta", "beta"}, traced.Platform, inside)
	if len(cl) != 2 || cl[0].Network != "infiniband" || cl[1].Network != "myrinet" {
		t.Errorf("job's clusters: %+v", cl)
	}
	out, err := PredictSchemes(res, Request{Problem: prob, Nodes: 2, Clusters: cl[:1], Inside: inside,
		Networks: []string{"infiniband=1Gbit/s"}, Schemes: []jobs.Scheme{jobs.Synchronous}})
	if err != nil {
		t.Fatal(err)
	}
	if n := out.Platform.Networks["infiniband"]; n.Source != "set" || out.Platform.Clusters[0].Network != "infiniband" {
		t.Errorf("the what-if edits %+v, the job uses %+v", n, out.Platform.Clusters)
	}
	// Without the inventory's word: Ethernet, said to be a default.
	if c := PlatformFor(res, mustBuild(t, res, prob), 4).Clusters; c[0].Network != "ethernet" || c[0].NetworkSource != SourceDefault {
		t.Errorf("no inventory: %+v", c)
	}
	// A traced link inside the cluster wins over the inventory.
	res.Records = append(res.Records, record("two-nodes", jobs.Synchronous, 100, 100, false)) // the latest
	res.Records[1].Nodes[0].Trace.Links[0].Network = "ethernet"
	res.Records[1].Nodes[1].Trace.Links[0].Network = "ethernet"
	if c := PlatformWith(res, mustBuild(t, res, prob), 4, inside).Clusters; c[0].Network != "ethernet" || c[0].NetworkSource != SourceTraced {
		t.Errorf("traced: %+v", c)
	}
}

func mustBuild(t *testing.T, res *jobs.Results, p Problem) *Model {
	t.Helper()
	m, err := Build(res, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCautionAdviceStaysInTheInventory: the node count a caution advises
// tracing on is one the inventory holds (an 8-node grid is not told to
// run 16 nodes), and no count is advised when none fits.
func TestCautionAdviceStaysInTheInventory(t *testing.T) {
	m := &Model{Sources: []Source{{Scheme: jobs.Synchronous, Nodes: 8}, {Scheme: jobs.Asynchronous, Nodes: 8}}}
	ps := []Prediction{{Scheme: jobs.Asynchronous}}
	for _, tc := range []struct {
		nodes, inventory int
		want             string
	}{
		{4, 8, "run it on 7 nodes too"}, // 16 and 9 do not fit, 4 is the job
		{4, 0, "run it on 16 nodes too"},
		{4, 32, "run it on 16 nodes too"},
		{2, 8, "run it on 4 nodes too"},
		{16, 9, "run it on 9 nodes too"},
	} {
		got := cautions(m, ps, tc.nodes, tc.inventory)[jobs.Asynchronous]
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("job %d nodes, inventory %d: %q, want …%q", tc.nodes, tc.inventory, got, tc.want)
		}
	}
	m.Sources[1].Nodes = 2
	if got := cautions(m, ps, 4, 2)[jobs.Asynchronous]; strings.Contains(got, "run it on") || !strings.Contains(got, "traced on 2 nodes only") {
		t.Errorf("a 2-node grid: %q", got)
	}
	if got := otherCount(2, 2, 2); got != 0 {
		t.Errorf("otherCount(2, 2, 2) = %d", got)
	}
}

// TestCautionWithoutATraceOfTheScheme: an asynchronous prediction whose
// staleness was fitted on hybrid runs only (no asynchronous run traced)
// says so and what to run; so does a hybrid one fitted on asynchronous
// runs only.
func TestCautionWithoutATraceOfTheScheme(t *testing.T) {
	m := &Model{Sources: []Source{{Scheme: jobs.Synchronous, Nodes: 4}, {Scheme: jobs.Hybrid, Nodes: 4}}}
	got := cautions(m, []Prediction{{Scheme: jobs.Synchronous}, {Scheme: jobs.Asynchronous}, {Scheme: jobs.Hybrid}}, 4, 8)
	if c := got[jobs.Asynchronous]; !strings.Contains(c, "no asynchronous run of this problem was traced") ||
		!strings.Contains(c, "--scheme async") {
		t.Errorf("async from hybrid runs: %q", c)
	}
	if _, ok := got[jobs.Hybrid]; ok || len(got) != 1 {
		t.Errorf("cautions %v: only async's", got)
	}
	m.Sources[1].Scheme = jobs.Asynchronous
	if c := cautions(m, []Prediction{{Scheme: jobs.Hybrid}}, 4, 8)[jobs.Hybrid]; !strings.Contains(c, "no hybrid run of this problem was traced") {
		t.Errorf("hybrid from async runs: %q", c)
	}
}
