package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestProgramPath: a host's entry wins over its cluster's, both over
// program; a node left without one, or a malformed entry, is an error
// naming it.
func TestProgramPath(t *testing.T) {
	t.Chdir(t.TempDir())
	nodes := []gridapp.Node{{Name: "alpha-1", Cluster: "alpha"}, {Name: "alpha-2", Cluster: "alpha"}, {Name: "beta-1", Cluster: "beta"}}
	tests := []struct {
		name, program, programs string
		want                    []string // per node: the path or the error
	}{
		{"program", "/p", "", []string{"program /p on", "program /p on", "program /p on"}},
		{"cluster", "/p", "beta=/b", []string{"program /p on", "program /p on", "program /b on"}},
		{"host over cluster", "", "alpha=/a alpha-2=/a2 beta=/b", []string{"/a on host alpha-1", "/a2 on host alpha-2", "/b on host beta-1"}},
		{"uncovered", "", "alpha=/a", []string{"/a", "/a", `exec: no program for host beta-1 (rank 2): programs names neither it nor its cluster "beta", and program is empty`}},
		{"malformed", "/p", "alpha", []string{`exec: programs: "alpha" is not host=path or cluster=path`}},
		{"empty path", "/p", "alpha=", []string{`exec: programs: "alpha=" is not host=path or cluster=path`}},
		{"twice", "/p", "alpha=/a alpha=/b", []string{"exec: programs: alpha is given twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for r, want := range tc.want {
				_, err := programPath(tc.program, tc.programs, gridapp.Subtask{Rank: r, Node: nodes[r]})
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("rank %d: %v, want %q", r, err, want)
				}
			}
		})
	}
}

// TestLocate: what is missing, a directory or not executable is an error
// naming the host and the path; a relative path is the worker's
// directory's, a bare name not there is looked up in PATH.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, mode := range map[string]os.FileMode{"prog": 0o755, "data": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	tests := []struct {
		path, want, err string
	}{
		{"prog", filepath.Join(dir, "prog"), ""},
		{"./prog", filepath.Join(dir, "prog"), ""},
		{filepath.Join(dir, "prog"), filepath.Join(dir, "prog"), ""},
		{"sh", "", ""}, // from PATH
		{"/nonexistent/poisson", "", "exec: program /nonexistent/poisson on host beta-2 (rank 3): no such file (give its path on that host with program or programs = \"beta-2=/path\", or ship it with deploy --ship)"},
		{"no-such-program-here", "", "exec: program no-such-program-here on host beta-2 (rank 3): neither in the worker's directory " + dir + " nor in PATH"},
		{"sub", "", "exec: program " + filepath.Join(dir, "sub") + " on host beta-2 (rank 3): is a directory"},
		// no x bit: not even root may execute it
		{"data", "", "exec: program " + filepath.Join(dir, "data") + " on host beta-2 (rank 3): not executable by the worker's user"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := locate(tc.path, "beta-2", 3)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || tc.want != "" && got != tc.want || !filepath.IsAbs(got) {
				t.Fatalf("%q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
