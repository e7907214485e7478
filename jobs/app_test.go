package jobs

import (
	"strings"
	"testing"

	_ "github.com/gridtui/gridtui/apps/obstacle" // the default job's application
	_ "github.com/gridtui/gridtui/apps/poisson"  // a second registered application
)

// TestSpecApplications: a job file names any registered application, whose
// [params] are checked against its declarations, with the key's position.
func TestSpecApplications(t *testing.T) {
	tests := map[string]struct {
		file string
		want string // "" = valid
	}{
		"poisson":         {"app = \"poisson\"\n[params]\nn = \"24\"\nblocks = \"2x2x1\"\n", ""},
		"poisson plain":   {"app = \"poisson\"\n", ""},
		"unknown app":     {"app = \"navier\"\n", `job.toml:1:1: app "navier" is unknown (registered: obstacle, poisson, test-path)`},
		"bad param":       {"app = \"poisson\"\n[params]\nn = \"0\"\n", "job.toml:3:1: app poisson: gridapp: bad parameter: n: 0 is outside 1…4096"},
		"unknown param":   {"app = \"poisson\"\n[params]\nm = \"3\"\n", "unknown parameter m (declared: n, eps, blocks)"},
		"obstacle params": {"app = \"obstacle\"\n[params]\nn = \"3\"\n", ""},
		"numbers":         {"app = \"poisson\"\n[params]\nn = 24\neps = 1e-9\nblocks = \"2x2x1\"\n", ""},
		"bad number":      {"app = \"poisson\"\n[params]\nn = 0\n", "job.toml:3:1: app poisson: gridapp: bad parameter: n: 0 is outside 1…4096"},
		"float for int":   {"app = \"poisson\"\n[params]\nn = 2.5\n", `job.toml:3:1: app poisson: gridapp: bad parameter: n: "2.5" is not an integer`},
		"array":           {"app = \"poisson\"\n[params]\nn = 24\nblocks = [2, 2, 1]\n", "job.toml:4:1: params.blocks: want a string, a number or a boolean, not an array"},
		"obstacle section": {"app = \"poisson\"\n\n[obstacle]\nn = 3\n",
			"job.toml:3:2: [obstacle] is the obstacle problem's; app poisson takes its parameters in [params]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSpec("job.toml", []byte(tc.file))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, v, err := s.Application(); err != nil || v.Int("n") == 0 {
					t.Fatalf("Application: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSpecOutputRefused: a job asking for VTI or raw files of an
// application that cannot say its grid shape (gridapp.Gridded) is refused
// before it runs, at the output key; one that can is accepted.
func TestSpecOutputRefused(t *testing.T) {
	tests := map[string]struct {
		app  string
		out  Output
		want string // "" = accepted
	}{
		"grid, vti and raw": {"poisson", Output{VTI: true, Raw: true}, ""},
		"no grid, vti":      {"test-path", Output{VTI: true}, "application test-path cannot say its grid shape"},
		"no grid, raw":      {"test-path", Output{Raw: true}, "has no raw solution file to write"},
		"no grid, none":     {"test-path", Output{}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := Spec{App: tc.app, Output: tc.out}
			if tc.app == "test-path" {
				s.Params = map[string]string{"input": "/m"}
			}
			var got string
			for _, p := range s.WithDefaults().Problems() {
				if p.Key == "output" {
					got = p.Msg
				}
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("output problem %q, want %q", got, tc.want)
			}
		})
	}
}
