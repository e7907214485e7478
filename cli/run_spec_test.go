package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
)

// buildSpecArgs parses args as gridtui run flags, builds the spec against
// the embedded local grid and returns the ranks engine.Run would plan for
// it when every host has a worker (the engine resolves the selection).
func buildSpecArgs(t *testing.T, args ...string) (specNodes []string, err error) {
	t.Helper()
	cmd := newRunCmd(&globalFlags{})
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	fl := cmd.Flags()
	f := &runFlags{}
	f.job, _ = fl.GetString("job")
	f.scheme, _ = fl.GetString("scheme")
	f.detector, _ = fl.GetString("detector")
	f.nodes, _ = fl.GetString("nodes")
	f.out, _ = fl.GetString("out")
	f.n, _ = fl.GetInt("n")
	f.cores, _ = fl.GetInt("cores")
	f.maxIter, _ = fl.GetInt("max-iter")
	f.eps, _ = fl.GetFloat64("eps")
	f.wall, _ = fl.GetDuration("wall-time")
	inv := inventory.Embedded()
	spec, err := buildSpec(cmd, f, inv)
	if err != nil {
		return nil, err
	}
	p, err := engine.PlanJob(spec, inv, grid.LocalNodes(inv))
	if err != nil {
		return nil, err
	}
	return p.Ranks, nil
}

func writeJob(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.toml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunNodesMixed checks that --nodes and the job file's [nodes] table may
// mix clusters, sites and hosts: the union, in inventory order, no duplicates.
func TestRunNodesMixed(t *testing.T) {
	alpha := []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4"}
	tests := map[string]struct {
		args []string
		want []string
	}{
		"cluster and host":        {[]string{"--nodes", "alpha,beta-2"}, append(slices.Clone(alpha), "beta-2")},
		"host first":              {[]string{"--nodes", "beta-2,alpha"}, append(slices.Clone(alpha), "beta-2")},
		"host inside the cluster": {[]string{"--nodes", "alpha-3,alpha"}, alpha},
		"site and host":           {[]string{"--nodes", "local,beta-1"}, []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1", "beta-2", "beta-3", "beta-4"}},
		"job file": {[]string{"--job", writeJob(t, "[obstacle]\nn = 16\n[nodes]\nclusters = [\"alpha\"]\nhosts = [\"beta-2\"]\n")},
			append(slices.Clone(alpha), "beta-2")},
		"job file with any": {[]string{"--job", writeJob(t, "[obstacle]\nn = 16\n[nodes]\nhosts = [\"beta-4\"]\nclusters = [\"alpha\"]\nany = 2\n")},
			[]string{"alpha-1", "alpha-2"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := buildSpecArgs(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("hosts %v, want %v", got, tc.want)
			}
		})
	}
	_, err := buildSpecArgs(t, "--job", writeJob(t, "[obstacle]\nn = 16\n[nodes]\nclusters = [\"gamma\"]\nhosts = [\"beta-2\"]\n"))
	if err == nil || !strings.Contains(err.Error(), `job.toml:4:1: nodes: cluster "gamma" is not in embedded`) {
		t.Errorf("unknown cluster in a mixed job: %v, want it at its line in the file", err)
	}
	_, err = buildSpecArgs(t, "--job", writeJob(t, "[nodes]\nsites = [\"lyon\"]\n"))
	if err == nil || !strings.Contains(err.Error(), `job.toml:2:1: nodes: site "lyon"`) {
		t.Errorf("unknown site in a job file: %v, want it at its line", err)
	}
	if _, err = buildSpecArgs(t, "--job", writeJob(t, "[nodes]\nsites = [\"lyon\"]\n"), "--nodes", "2"); err != nil {
		t.Errorf("--nodes replaces the job file's selection: %v", err)
	}
}

// TestRunBadValues checks that values which would be replaced by a default
// or fail only after the workers started are refused up front, naming the
// flag or the job file's key with its position.
func TestRunBadValues(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"eps zero":          {[]string{"--eps", "0"}, "--eps 0"},
		"eps negative":      {[]string{"--eps", "-1e-9"}, "--eps -1e-09"},
		"wall time":         {[]string{"--wall-time", "-1s"}, "--wall-time -1s"},
		"wall time zero":    {[]string{"--wall-time", "0s"}, "--wall-time 0s"},
		"max iter":          {[]string{"--max-iter", "-5"}, "--max-iter -5"},
		"n zero":            {[]string{"--n", "0"}, "--n 0"},
		"host twice":        {[]string{"--nodes", "alpha-1,alpha-1"}, "alpha-1 is listed twice"},
		"job eps zero":      {[]string{"--job", writeJob(t, "[obstacle]\nn = 16\neps = 0\n")}, "job.toml:3:1: app obstacle: gridapp: bad parameter: eps: 0 is outside > 0"},
		"job wall negative": {[]string{"--job", writeJob(t, "wall_time = \"-1s\"\n[obstacle]\nn = 16\n")}, "job.toml:1:1: wall_time = -1s must not be negative"},
		"job max iter":      {[]string{"--job", writeJob(t, "max_iterations = -3\n[obstacle]\nn = 16\n")}, "job.toml:1:1: max_iterations = -3"},
		"job host twice":    {[]string{"--job", writeJob(t, "[obstacle]\nn = 16\n[nodes]\nhosts = [\"alpha-1\", \"alpha-1\"]\n")}, "job.toml:4:1: nodes.hosts: alpha-1 is listed twice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := buildSpecArgs(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := buildSpecArgs(t, "--eps", "1e-6", "--wall-time", "1m", "--max-iter", "10", "--n", "8"); err != nil {
		t.Errorf("valid flags refused: %v", err)
	}
}

// TestRunEmptySelection checks that a job whose sites and clusters share no host
// is refused where it enters the engine, before any worker starts (no node
// is free here), naming both, as Compose refuses it.
func TestRunEmptySelection(t *testing.T) {
	inv, err := inventory.Load("../testdata/sites/good_two_sites.toml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := newRunCmd(&globalFlags{})
	job := writeJob(t, "[obstacle]\nn = 16\n[nodes]\nsites = [\"nancy\"]\nclusters = [\"sagittaire\"]\n")
	if err := cmd.ParseFlags([]string{"--job", job}); err != nil {
		t.Fatal(err)
	}
	spec, err := buildSpec(cmd, &runFlags{job: job}, inv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.PlanJob(spec, inv, nil)
	if !errors.Is(err, jobs.ErrEmptySelection) || !strings.Contains(err.Error(), "nancy") || !strings.Contains(err.Error(), "sagittaire") {
		t.Fatalf("err %v, want an empty selection naming nancy and sagittaire", err)
	}
}
