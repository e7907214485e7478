package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// predicted returns v after its Predict panel answered (the debounce is 0
// in tests), with the time the answer took cleared for goldens.
func predicted(t *testing.T, v Model) Model {
	t.Helper()
	cmd := v.schedulePrediction()
	if cmd == nil && v.fc.pending { // scheduled before: answer it now
		cmd = v.predictCmd(v.fc.seq)
	}
	queue := cmdMsgs(cmd)
	for len(queue) > 0 {
		var cmd tea.Cmd
		v, cmd = v.update(queue[0])
		queue = append(queue[1:], cmdMsgs(cmd)...)
	}
	if v.fc.pending {
		t.Fatal("the prediction did not answer")
	}
	v.fc.took = 0
	return v
}

func TestComposePredictPanel(t *testing.T) {
	cases := []struct {
		name  string
		res   *jobs.Results
		setup func(v *Model)
	}{
		{name: "no_trace"},
		{name: "outlook", res: tracedStore(48)},
		// Only synchronous traces: the schemes it cannot predict say which
		// to run in the form's words (Scheme ‹async› (r)), not a flag.
		{name: "sync_only", res: &jobs.Results{Path: "results.jsonl", Records: tracedStore(48).Records[:2]}},
		{name: "what_if", res: tracedStore(48), setup: func(v *Model) {
			v.pane, v.cursor[panePredict] = panePredict, 0
			v.setPredictValue(0, "10Gbit/s,100us") // ethernet between the clusters
			v.setPredictValue(len(v.predictRows())-1, "32")
			v.field(fScheme).Value = "async"
		}},
		{name: "form_problem", res: tracedStore(48), setup: func(v *Model) {
			v.param("n").Value = "x"
			v.validate()
		}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := composeWith(c, inventory.Embedded())
				v.SetResults(tc.res)
				v = predicted(t, v)
				if tc.setup != nil {
					tc.setup(&v)
					v = predicted(t, v)
				}
				out := v.View()
				checkSize(t, c, out)
				requireGolden(t, out)
			})
		}
	}
}

// TestComposePredictFollowsJob: the panel predicts every scheme side by side
// from the traced runs, and predicts again when the nodes, the scheme or a
// network's what-if figures change; a faster network between the clusters
// makes the synchronous 8-node job (alpha + beta) faster; with no trace it
// says what to run first.
func TestComposePredictFollowsJob(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v = predicted(t, v)
	if v.fc.err == nil || !noTrace(v.fc.err) || !strings.Contains(ansiStrip(v.View()), "No usable trace") {
		t.Fatalf("no store: err %v, view:\n%s", v.fc.err, ansiStrip(v.View()))
	}
	v.SetResults(tracedStore(48))
	v = predicted(t, v)
	if v.fc.out == nil || len(v.fc.out.Predictions) != 3 || v.fc.out.Platform.Nodes() != 8 {
		t.Fatalf("outlook %+v, err %v", v.fc.out, v.fc.err)
	}
	sync8 := v.fc.out.Predictions[0].Seconds
	if cmd := v.schedulePrediction(); cmd != nil {
		t.Error("nothing changed, yet the panel predicts again")
	}
	v.pane, v.cursor[panePredict] = panePredict, 0
	v.press("enter", "ctrl+u")
	v.input.SetValue("fast")
	v.press("enter")
	if !strings.Contains(v.status, "what-if ethernet") {
		t.Fatalf("a refused what-if: status %q", v.status)
	}
	v.press("enter", "ctrl+u")
	v.input.SetValue("100Gbit/s,1us")
	v.press("enter")
	if v.status != "" {
		t.Errorf("the refusal outlives a valid what-if: status %q", v.status)
	}
	v = predicted(t, v)
	if got := v.fc.out.Platform.Networks["ethernet"]; got.Source != "set" || got.Latency != time.Microsecond {
		t.Fatalf("ethernet after the what-if edit: %+v", got)
	}
	if faster := v.fc.out.Predictions[0].Seconds; !(faster < sync8) {
		t.Errorf("sync on 8 nodes: %g s with 100 Gbit/s between the clusters, %g s before", faster, sync8)
	}
	noNodes(&v)
	v.picked["alpha-1"], v.picked["alpha-2"] = true, true
	v.validate()
	v = predicted(t, v)
	if v.fc.out.Platform.Nodes() != 2 || len(v.fc.out.Platform.Clusters) != 1 {
		t.Errorf("after choosing 2 nodes of alpha: platform %+v", v.fc.out.Platform)
	}
}

// TestComposePredict1024: a 1024-node what-if prediction of every scheme
// answers in under a second, off the UI goroutine (Update returns at once
// with a command).
func TestComposePredict1024(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.SetResults(tracedStore(2048)) // 2 planes a node on 1024 nodes
	v.param("n").Value = "2048"
	v.validate()
	v = predicted(t, v)
	v.setPredictValue(len(v.predictRows())-1, "1024")
	start := time.Now()
	cmd := v.schedulePrediction()
	if time.Since(start) > 50*time.Millisecond || cmd == nil {
		t.Fatalf("scheduling took %s (cmd %v): the prediction ran on the UI goroutine", time.Since(start), cmd != nil)
	}
	start = time.Now()
	v = predicted(t, v)
	if d := time.Since(start); d > time.Second && !raceEnabled {
		t.Errorf("a 1024-node prediction took %s, want < 1 s", d)
	}
	if v.fc.out == nil || v.fc.out.Platform.Nodes() != 1024 || len(v.fc.out.Predictions) != 3 {
		t.Fatalf("outlook %+v err %v", v.fc.out, v.fc.err)
	}
}

// BenchmarkComposePredict1024 is the Predict panel's work for a what-if of
// 1024 nodes (obstacle n = 2048, every scheme): the command that runs off
// the UI goroutine.
func BenchmarkComposePredict1024(b *testing.B) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.SetResults(tracedStore(2048))
	v.param("n").Value = "2048"
	v.validate()
	v.fc.nodes = "1024"
	r, _, why := v.request()
	if why != "" {
		b.Fatal(why)
	}
	for b.Loop() {
		if out, err := runPrediction(v.fc.res, r); err != nil || len(out.Predictions) != 3 {
			b.Fatalf("%v %+v", err, out)
		}
	}
}

// TestComposePredictNoTraceSparse: with no trace of a sparse problem the
// panel says what to run first with the parameters sparse declares, not a
// size n it does not have.
func TestComposePredictNoTraceSparse(t *testing.T) {
	mtx := filepath.Join(t.TempDir(), "diag.mtx")
	if err := os.WriteFile(mtx, []byte(diagMatrix(10)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "sparse" {
		v.press("enter")
	}
	v.param("matrix").Value = mtx
	v.validate()
	if p := v.Problems(); len(p) != 0 {
		t.Fatalf("problems %q", p)
	}
	v = predicted(t, v)
	view := ansiStrip(v.View())
	if !noTrace(v.fc.err) || !strings.Contains(view, "No usable trace of sparse ε = 1e-10 ") ||
		!strings.Contains(v.fc.err.Error(), "gridtui run --app sparse --param eps=1e-10 --scheme sync") {
		t.Fatalf("err %v, view:\n%s", v.fc.err, ansiStrip(v.View()))
	}
	if strings.Contains(view, "n=0") || strings.Contains(view, "n = 0") {
		t.Errorf("the hint names an n sparse does not declare:\n%s", ansiStrip(v.View()))
	}
}

// diagMatrix is a Matrix Market file of the n×n matrix with 4 on its
// diagonal and −1 beside it (diagonally dominant).
func diagMatrix(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, 3*n-2)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d %d 4\n", i, i)
		if i < n {
			fmt.Fprintf(&b, "%d %d -1\n%d %d -1\n", i, i+1, i+1, i)
		}
	}
	return b.String()
}

// TestOutlookCloseCall: the panel names the fastest scheme and its lead,
// or, when others are within predict.CloseCall of it, says the call is too
// close.
func TestOutlookCloseCall(t *testing.T) {
	v := New(testCommon(120, 40), inventory.Embedded())
	o := &predict.Outlook{Model: &predict.Model{}, Predictions: []predict.Prediction{
		{Scheme: jobs.Synchronous, Seconds: 14}, {Scheme: jobs.Asynchronous, Seconds: 5.5}, {Scheme: jobs.Hybrid, Seconds: 5.6}}}
	for _, tc := range []struct {
		verdict predict.Verdict
		want    string
	}{
		{predict.Verdict{Fastest: jobs.Asynchronous, Next: jobs.Hybrid, Gap: 0.018, Close: []jobs.Scheme{jobs.Hybrid}},
			"fastest    async ≈ hybrid: within 5 %, too close to call"},
		{predict.Verdict{Fastest: jobs.Asynchronous, Next: jobs.Hybrid, Gap: 0.12}, "fastest    async, 12 % ahead of hybrid"},
	} {
		o.Verdict = &tc.verdict
		if got := strings.Join(v.outlookLines(o, 100), "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("verdict %+v: panel lacks %q:\n%s", tc.verdict, tc.want, got)
		}
	}
}

// TestComposeRelativeMatrix: a relative matrix path is taken from the
// console's working directory, as its help and gridtui run say, not refused.
func TestComposeRelativeMatrix(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "diag.mtx"), []byte(diagMatrix(10)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "sparse" {
		v.press("enter")
	}
	v.param("matrix").Value = "diag.mtx"
	v.validate()
	if p := v.Problems(); len(p) != 0 {
		t.Fatalf("a relative matrix path is refused: %q", p)
	}
	if got := v.Spec().Params["matrix"]; got != filepath.Join(dir, "diag.mtx") {
		t.Errorf("the job's matrix = %q, want it joined to the working directory", got)
	}
}

// TestComposePredictAfterOneNodeRun: with only a one-node run traced (no
// link, so no network), the panel puts alpha on the network the inventory
// gives it (Infiniband on the embedded grid), for the job's nodes and for
// a what-if node count alike, so that its rows edit the network the job
// would use, not Ethernet.
func TestComposePredictAfterOneNodeRun(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	v.SetResults(&jobs.Results{Path: "results.jsonl", Records: []jobs.RunRecord{tracedRun("sync1", jobs.Synchronous, 400, 48, "alpha")}})
	v = predicted(t, v)
	check := func(what string, want []predict.Cluster, rows []string) {
		t.Helper()
		if v.fc.out == nil {
			t.Fatalf("%s: no outlook (%v, %s)", what, v.fc.err, v.fc.why)
		}
		var got []predict.Cluster
		for _, c := range v.fc.out.Platform.Clusters {
			got = append(got, predict.Cluster{Name: c.Name, Nodes: c.Nodes, Network: c.Network})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(v.predictRows()) != fmt.Sprint(rows) {
			t.Errorf("%s: clusters %v, rows %q; want %v, %q", what, got, v.predictRows(), want, rows)
		}
	}
	check("the job's nodes", []predict.Cluster{{Name: "alpha", Nodes: 4, Network: "infiniband"}, {Name: "beta", Nodes: 4, Network: "infiniband"}},
		[]string{"ethernet", "infiniband", ""})
	v.setPredictValue(len(v.predictRows())-1, "4")
	v = predicted(t, v)
	check("what-if 4 nodes", []predict.Cluster{{Name: "alpha", Nodes: 4, Network: "infiniband"}}, []string{"infiniband", ""})
}
