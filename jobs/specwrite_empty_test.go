package jobs

import (
	"strings"
	"testing"
)

// TestFormatSpecOmitsEmpty: a written job file leaves out what the job
// does not set (no sites = [], any = 0 or an [output] of empty values for
// the reader to puzzle over), and reads back the same.
func TestFormatSpecOmitsEmpty(t *testing.T) {
	s := DefaultSpec()
	s.Nodes = NodeSelection{Clusters: []string{"alpha", "beta"}}
	data, err := FormatSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, noise := range []string{"sites = []", "hosts = []", "any = 0", "[output]", "dir = ''", "vti = false"} {
		if strings.Contains(text, noise) {
			t.Errorf("written job has %q:\n%s", noise, text)
		}
	}
	if !strings.Contains(text, "clusters = ['alpha', 'beta']") {
		t.Errorf("written job lacks its clusters:\n%s", text)
	}
	back, err := ParseSpec("job.toml", data)
	if err != nil || len(back.Nodes.Clusters) != 2 || back.Nodes.Any != 0 || back.Output != (Output{}) {
		t.Fatalf("read back: %+v, %v", back, err)
	}
}
