package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkKeys fails t for every object key of the JSON value v that is not
// snake_case, naming its path.
func checkKeys(t *testing.T, what, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %s.%s is not snake_case", what, path, k)
			}
			checkKeys(t, what, path+"."+k, e)
		}
	case []any:
		for _, e := range v {
			checkKeys(t, what, path+"[]", e)
		}
	}
}

// checkJSONLines decodes every line (or the whole output when it is one
// indented document) and checks its keys.
func checkJSON(t *testing.T, what string, out []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	docs := 0
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: not JSON (%v):\n%s", what, err, out)
		}
		checkKeys(t, what, "", v)
		docs++
	}
	if docs == 0 {
		t.Fatalf("%s printed no JSON", what)
	}
}

// storeWithRuns returns a results store with a single-node and a 4-node run
// of the same problem, and the 4-node run's id.
func storeWithRuns(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var id string
	for _, r := range []struct {
		nodes int
		wall  float64
	}{{1, 4}, {4, 1}} {
		rec := jobs.RunRecord{Job: jobs.RunConfig{App: "obstacle", N: 48, Eps: 1e-8, Scheme: jobs.Asynchronous, Nodes: r.nodes, Cores: r.nodes, Grid: "alpha"},
			WallSeconds: r.wall, Outcome: jobs.OutcomeOK,
			Nodes:     []jobs.NodeRecord{{Name: "alpha-1", Iterations: 10, PeakRSS: 1 << 20}},
			Residuals: []jobs.ResidualSample{{Iteration: 1, Seconds: 0.5, Sigma: 0.25}, {Iteration: 10, Seconds: 1, Sigma: 1e-9}}}
		if err := jobs.Append(dir, &rec); err != nil {
			t.Fatal(err)
		}
		id = rec.ID
	}
	return dir, id
}

// TestJSONKeys checks that every command's --json output is JSON whose keys
// all follow one convention, snake_case.
func TestJSONKeys(t *testing.T) {
	dir, id := storeWithRuns(t)
	for name, args := range map[string][]string{
		"sites":         {"sites", "--json"},
		"results":       {"results", "--json", "--data-dir", dir},
		"results list":  {"results", "--list", "--json", "--data-dir", dir},
		"results show":  {"results", "show", id, "--json", "--data-dir", dir},
		"bench dry run": {"bench", "study", "--dry-run", "--json"},
		"bench rmnp":    {"bench", "rmnp", "--json", "--sizes", "8", "--transports", "unix", "--rounds", "1", "--round", "5ms", "--min-trips", "1", "--window", "2"},
		"deploy local":  {"deploy", "--json", "alpha-1"},
	} {
		t.Run(name, func(t *testing.T) {
			checkJSON(t, strings.Join(args, " "), runGridtui(t, args...))
		})
	}
	t.Run("run", func(t *testing.T) {
		var out bytes.Buffer
		p := &progress{w: &out, json: true}
		p.log(engine.LogEvent{At: time.Now(), Node: "alpha-1", Text: "joined"})
		p.snapshot(engine.Snapshot{Nodes: []engine.NodeStatus{{Node: "alpha-1"}}})
		p.emit("report", &engine.Report{Spec: jobs.DefaultSpec(), Nodes: []engine.NodeReport{{Node: "alpha-1", Iterations: 3, PeakRSS: 1}}})
		checkJSON(t, "run --json", out.Bytes())
		if !strings.Contains(out.String(), `"iterations":3`) || !strings.Contains(out.String(), `"wall_seconds":`) {
			t.Errorf("run --json report lacks iterations or wall_seconds:\n%s", out.String())
		}
	})
}

// TestResultsShowExport checks `results show RUN` and `results export RUN`:
// the record in text, and the residual history (CSV) and gain chart (SVG)
// written to a directory; an unknown run is named.
func TestResultsShowExport(t *testing.T) {
	dir, id := storeWithRuns(t)
	out := string(runGridtui(t, "results", "show", id, "--data-dir", dir))
	for _, w := range []string{id, "n = 48", "async", "alpha-1", "gain 4.00"} {
		if !strings.Contains(out, w) {
			t.Errorf("results show lacks %q:\n%s", w, out)
		}
	}
	exp := t.TempDir()
	runGridtui(t, "results", "export", id, "--data-dir", dir, "--out", exp)
	csv, err := os.ReadFile(filepath.Join(exp, id+"-residuals.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "iteration,seconds,sigma\n1,0.5,0.25\n10,1,1e-09\n") {
		t.Errorf("residuals CSV (%v):\n%s", err, csv)
	}
	svg, err := os.ReadFile(filepath.Join(exp, id+"-gain.svg"))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("gain SVG (%v): %.200s", err, svg)
	}
	root := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetArgs([]string{"results", "show", "nosuchrun", "--data-dir", dir})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "nosuchrun") {
		t.Errorf("results show of an unknown run: %v", err)
	}
}
