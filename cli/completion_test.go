package cli

import (
	"bytes"
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command as a shell's completion
// script does and returns the candidates and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append([]string{"__complete"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var cands []string
	for _, l := range lines[:len(lines)-1] {
		c, _, _ := strings.Cut(l, "\t")
		cands = append(cands, c)
	}
	return cands, lines[len(lines)-1]
}

func TestCompletions(t *testing.T) {
	tests := map[string]struct {
		args      []string
		want      []string // every one of these among the candidates
		not       []string
		directive string
	}{
		"nodes":         {[]string{"run", "--nodes", ""}, []string{"local", "alpha", "beta", "alpha-1", "beta-4"}, nil, ":6"},
		"nodes prefix":  {[]string{"run", "--nodes", "al"}, []string{"alpha", "alpha-2"}, []string{"beta"}, ":6"},
		"nodes list":    {[]string{"run", "--nodes", "alpha,be"}, []string{"alpha,beta", "alpha,beta-1"}, []string{"alpha,alpha"}, ":6"},
		"deploy":        {[]string{"deploy", "b"}, []string{"beta", "beta-3"}, []string{"alpha"}, ":4"},
		"deploy second": {[]string{"deploy", "alpha", ""}, []string{"beta"}, []string{"alpha"}, ":4"},
		"scheme":        {[]string{"run", "--scheme", ""}, []string{"sync", "async", "hybrid"}, nil, ":4"},
		"detector":      {[]string{"run", "--detector", ""}, []string{"tokens", "activity", "switch"}, nil, ":4"},
		"job":           {[]string{"run", "--job", ""}, []string{"toml"}, nil, ":8"},
		"sites":         {[]string{"sites", "--sites", ""}, []string{"toml"}, nil, ":8"},
		"matrix":        {[]string{"bench", "study", "--matrix", ""}, []string{"toml"}, nil, ":8"},
		"app":           {[]string{"run", "--app", ""}, []string{"obstacle", "poisson", "sparse"}, nil, ":4"},
		"param":         {[]string{"run", "--app", "poisson", "--param", "b"}, []string{"blocks="}, []string{"n="}, ":6"},
		"predict param": {[]string{"predict", "--app", "sparse", "--param", ""}, []string{"matrix=", "eps="}, nil, ":6"},
		"help topic":    {[]string{"help", "re"}, []string{"results"}, []string{"run"}, ":4"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, dir := complete(t, tc.args...)
			for _, w := range tc.want {
				if !contains(got, w) {
					t.Errorf("completing %v: %q missing from %v", tc.args, w, got)
				}
			}
			for _, w := range tc.not {
				if contains(got, w) {
					t.Errorf("completing %v: %q offered: %v", tc.args, w, got)
				}
			}
			if dir != tc.directive {
				t.Errorf("completing %v: directive %s, want %s", tc.args, dir, tc.directive)
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestCompleteRunIDs: logs and results show complete the store's run ids,
// and logs then the run's nodes.
func TestCompleteRunIDs(t *testing.T) {
	dir, id := storeWithRuns(t)
	got, _ := complete(t, "logs", "--data-dir", dir, id[:8])
	if len(got) != 2 || got[0] != id {
		t.Errorf("logs run ids %v, want the two runs, %s first", got, id)
	}
	got, _ = complete(t, "results", "show", "--data-dir", dir, "")
	if len(got) != 2 {
		t.Errorf("results show run ids %v", got)
	}
	got, _ = complete(t, "logs", "--data-dir", dir, id, "")
	if len(got) != 1 || got[0] != "alpha-1" {
		t.Errorf("logs nodes %v, want alpha-1", got)
	}
}
