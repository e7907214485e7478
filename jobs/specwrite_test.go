package jobs

import (
	"os"

	_ "github.com/gridtui/gridtui/apps/poisson" // the full spec's application
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// zeroFields reports the fields of v (a struct, recursively) left zero,
// so that a field added to Spec fails the round trip until a test sets it.
func zeroFields(v reflect.Value, path string) []string {
	if v.Kind() != reflect.Struct {
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
	var out []string
	for i := range v.NumField() {
		out = append(out, zeroFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
	}
	return out
}

// TestSpecRoundTrip: a spec written by SaveSpec reads back equal with
// LoadSpec, every field included, for node selections of each shape and
// with and without groups.
func TestSpecRoundTrip(t *testing.T) {
	full := Spec{
		Name: "every field", App: "poisson",
		Params: map[string]string{"n": "20", "blocks": "2x1x1"},
		Scheme: Hybrid, Detector: DetectSwitch,
		Nodes: NodeSelection{Sites: []string{"lyon"}, Clusters: []string{"sagittaire"}, Hosts: []string{"n3.nancy", "n1.nancy"}, Any: 3},
		Cores: 2,
		Groups: []Group{
			{Coordinator: "n1.nancy", Workers: []string{"n3.nancy", "n1.nancy"}},
			{Coordinator: "s-2", Workers: []string{"s-2"}},
		},
		MaxIter: 1234, Iterations: 321, WallTime: 90*time.Second + 250*time.Millisecond,
		Output: Output{Dir: "out dir/α", VTI: true, Raw: true},
		// In the order of their names: a written [sweep] is a TOML table.
		Sweep:      &Sweep{Axes: []SweepAxis{{Name: "blocks", Values: []string{"2x1x1", "1x2x1"}}, {Name: "eps", Values: []string{"1e-06", "1e-08"}}}},
		Resilience: Resilience{Spares: 2, CheckpointEvery: 150, CheckpointDir: "/shared/ckpt", MaxRecoveries: 5},
	}
	if zero := zeroFields(reflect.ValueOf(full), "Spec"); len(zero) > 0 {
		t.Fatalf("the full spec leaves %v zero: set them so the round trip covers them", zero)
	}
	tests := map[string]Spec{
		"every field":     full,
		"default":         DefaultSpec(),
		"clusters":        {Name: "c", Params: map[string]string{"n": "16"}, Scheme: Asynchronous, Nodes: NodeSelection{Clusters: []string{"alpha", "beta"}, Any: 5}},
		"hosts in order":  {Name: "h", Params: map[string]string{"n": "16"}, Scheme: Synchronous, Nodes: NodeSelection{Hosts: []string{"beta-2", "alpha-1"}}},
		"every host":      {Name: "all", Params: map[string]string{"n": "16"}},
		"host's cores":    {Name: "cores", Params: map[string]string{"n": "16"}, Cores: 0, Nodes: NodeSelection{Any: 2}},
		"groups, 1 node":  {Name: "g", Params: map[string]string{"n": "16"}, Groups: []Group{{Coordinator: "alpha-1", Workers: []string{"alpha-1"}}}},
		"sites and hosts": {Name: "s", Params: map[string]string{"n": "16"}, Nodes: NodeSelection{Sites: []string{"local"}, Hosts: []string{"gamma-1"}}},
	}
	for name, spec := range tests {
		t.Run(name, func(t *testing.T) {
			spec = spec.WithDefaults()
			if err := spec.Validate(); err != nil {
				t.Fatalf("test spec invalid: %v", err)
			}
			path := filepath.Join(t.TempDir(), "job.toml")
			if err := SaveSpec(path, spec, "written by a test\nsecond line"); err != nil {
				t.Fatal(err)
			}
			got, err := LoadSpec(path)
			data, _ := os.ReadFile(path)
			if err != nil {
				t.Fatalf("written job does not load: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(normalize(got), normalize(spec)) {
				t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, spec, data)
			}
			if !strings.HasPrefix(string(data), "# written by a test\n# second line\n") {
				t.Errorf("comment not at the top:\n%s", data)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("%d files left in the directory, want the job file alone", len(entries))
			}
		})
	}
}

// normalize makes empty and nil slices alike: a file cannot tell them apart.
func normalize(s Spec) Spec {
	for _, p := range []*[]string{&s.Nodes.Sites, &s.Nodes.Clusters, &s.Nodes.Hosts} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if len(s.Groups) == 0 {
		s.Groups = nil
	}
	return s
}

func TestSaveSpecError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "job.toml")
	err := SaveSpec(path, DefaultSpec(), "")
	if err == nil || !strings.Contains(err.Error(), "jobs: save job file "+path) {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}
