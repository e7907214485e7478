package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

func TestParseNodes(t *testing.T) {
	inv := inventory.Embedded()
	tests := map[string]struct {
		in   string
		want string // fmt of the selection, or "error"
	}{
		"count":    {"4", "{[] [] [] 4}"},
		"clusters": {"alpha, beta", "{[] [alpha beta] [] 0}"},
		"hosts":    {"alpha-1,beta-2", "{[] [] [alpha-1 beta-2] 0}"},
		"site":     {"local", "{[local] [] [] 0}"},
		"unknown":  {"gamma", "error"},
		"zero":     {"0", "error"},
		"mixed":    {"alpha,beta-1", "{[] [alpha] [beta-1] 0}"},
		"node set": {"alpha-[1-2],beta", "{[] [beta] [alpha-1 alpha-2] 0}"},
		"bad set":  {"alpha-[2-1]", "error"},
		"missing":  {"alpha-[1-9]", "error"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sel, err := parseNodes(tc.in, inv)
			got := "error"
			if err == nil {
				got = fmt.Sprint(sel)
			}
			if got != tc.want {
				t.Errorf("parseNodes(%q) = %s (%v), want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestBuildSpecFlags(t *testing.T) {
	cmd := newRunCmd(&globalFlags{})
	if err := cmd.ParseFlags([]string{"--job", "../testdata/jobs/default.toml", "--n", "32", "--scheme", "sync", "--nodes", "alpha", "--max-iter", "99"}); err != nil {
		t.Fatal(err)
	}
	f := &runFlags{}
	fl := cmd.Flags()
	f.job, _ = fl.GetString("job")
	f.n, _ = fl.GetInt("n")
	f.scheme, _ = fl.GetString("scheme")
	f.nodes, _ = fl.GetString("nodes")
	f.maxIter, _ = fl.GetInt("max-iter")
	spec, err := buildSpec(cmd, f, inventory.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	spec = spec.WithDefaults()
	if spec.Params["n"] != "32" || spec.Params["eps"] != "1e-08" || spec.Scheme != jobs.Synchronous || spec.Detector != jobs.DetectTokens ||
		spec.MaxIter != 99 || len(spec.Nodes.Clusters) != 1 || spec.Nodes.Any != 0 {
		t.Errorf("spec %+v", spec)
	}
}

func TestShowResults(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		nodes int
		wall  float64
	}{{1, 4}, {4, 1}} {
		rec := jobs.RunRecord{Job: jobs.RunConfig{App: "obstacle", N: 48, Eps: 1e-8, Scheme: jobs.Asynchronous, Nodes: r.nodes, Cores: r.nodes, Grid: "alpha"},
			WallSeconds: r.wall, Outcome: jobs.OutcomeOK}
		if err := jobs.Append(dir, &rec); err != nil {
			t.Fatal(err)
		}
	}
	for format, want := range map[string]string{"text": "4.00", "csv": ",", "markdown": "| 4 |"} {
		var out bytes.Buffer
		cmd := newResultsCmd()
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"--data-dir", dir, "--format", format, "--table", "gain"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) || (format != "csv" && !strings.Contains(out.String(), "gain")) {
			t.Errorf("%s output lacks %q:\n%s", format, want, out.String())
		}
	}
}

// TestRunRefusesUnwritableOut checks that an --out that cannot take the
// solution (a file stands there) is refused before any worker starts.
func TestRunRefusesUnwritableOut(t *testing.T) {
	file := t.TempDir() + "/taken"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"run", "--n", "8", "--nodes", "1", "--no-record", "--out", file})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("run --out FILE = %v", err)
	}
	if strings.Contains(out.String(), "starting") {
		t.Errorf("workers started before the output was checked:\n%s", out.String())
	}
}
