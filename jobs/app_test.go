package jobs

import (
	"strings"
	"testing"

	_ "github.com/gridtui/gridtui/apps/poisson" // a second registered application
)

// TestSpecApplications: a job file names any registered application, whose
// [params] are checked against its declarations, with the key's position.
func TestSpecApplications(t *testing.T) {
	tests := map[string]struct {
		file string
		want string // "" = valid
	}{
		"poisson":       {"app = \"poisson\"\n[params]\nn = \"24\"\nblocks = \"2x2x1\"\n", ""},
		"poisson plain": {"app = \"poisson\"\n", ""},
		"unknown app":   {"app = \"navier\"\n", `job.toml:1:1: app "navier" is unknown (registered: obstacle, poisson, test-path)`},
		"bad param":     {"app = \"poisson\"\n[params]\nn = \"0\"\n", "job.toml:3:1: app poisson: gridapp: bad parameter: n: 0 is outside 1…4096"},
		"unknown param": {"app = \"poisson\"\n[params]\nm = \"3\"\n", "unknown parameter m (declared: n, eps, blocks)"},
		"obstacle params": {"app = \"obstacle\"\n[params]\nn = \"3\"\n",
			"the obstacle problem takes n and eps in [obstacle], not [params]"},
		"numbers":       {"app = \"poisson\"\n[params]\nn = 24\neps = 1e-9\nblocks = \"2x2x1\"\n", ""},
		"bad number":    {"app = \"poisson\"\n[params]\nn = 0\n", "job.toml:3:1: app poisson: gridapp: bad parameter: n: 0 is outside 1…4096"},
		"float for int": {"app = \"poisson\"\n[params]\nn = 2.5\n", `job.toml:3:1: app poisson: gridapp: bad parameter: n: "2.5" is not an integer`},
		"array":         {"app = \"poisson\"\n[params]\nn = 24\nblocks = [2, 2, 1]\n", "job.toml:4:1: params.blocks: want a string, a number or a boolean, not an array"},
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
