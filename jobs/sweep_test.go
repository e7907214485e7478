package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseSweepValues(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string // values joined by spaces, or "error: fragment"
	}{
		"list":             {"32, 48,64", "32 48 64"},
		"one":              {"32", "32"},
		"words":            {"sync,async", "sync async"},
		"integers":         {"1:5", "1 2 3 4 5"},
		"down":             {"5:1:2", "5 3 1"},
		"additive":         {"0:1:0.25", "0 0.25 0.5 0.75 1"},
		"tenths":           {"0.1:0.5:0.1", "0.1 0.2 0.3 0.4 0.5"},
		"plus step":        {"2:8:+3", "2 5 8"},
		"factor up":        {"8:64:x2", "8 16 32 64"},
		"factor down":      {"1e-6:1e-9:x10", "1e-06 1e-07 1e-08 1e-09"},
		"factor short":     {"8:100:x2", "8 16 32 64"},
		"start is stop":    {"4:4", "4"},
		"empty list":       {"", "error: empty value"},
		"empty item":       {"8,,16", "error: empty value"},
		"fraction no step": {"0.5:2", "error: needs a step"},
		"zero step":        {"1:5:0", "error: non-zero"},
		"factor 1":         {"1:5:x1", "error: above 1"},
		"factor from 0":    {"0:5:x2", "error: same sign"},
		"huge":             {"1:1e9", "error: at most"},
		"nan":              {"1:5:NaN", "error: non-zero"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			vals, err := ParseSweepValues(tc.in)
			got := strings.Join(vals, " ")
			if err != nil {
				got = "error: " + err.Error()
				if !errors.Is(err, ErrSweep) {
					t.Errorf("error %v does not match ErrSweep", err)
				}
				if frag := strings.TrimPrefix(tc.want, "error: "); strings.Contains(got, frag) {
					return
				}
			}
			if got != tc.want {
				t.Errorf("ParseSweepValues(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzParseSweepValues(f *testing.F) {
	for _, s := range []string{"1:5", "8:64:x2", "1e-6:1e-9:x10", "0:1:0.1", "a,b", "1:2:3:4", "-3:3:1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vals, err := ParseSweepValues(s)
		if err == nil && len(vals) == 0 {
			t.Errorf("%q: no values and no error", s)
		}
		if len(vals) > maxAxisValues {
			t.Errorf("%q: %d values", s, len(vals))
		}
	})
}

func TestSweepSection(t *testing.T) {
	dir := t.TempDir()
	lines := filepath.Join(dir, "blocks.txt")
	if err := os.WriteFile(lines, []byte("# decompositions\n2x1x1\n\n1x2x1\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := "app = \"poisson\"\n[params]\neps = 1e-6\n[sweep]\nn = [8, 12]\nscheme = [\"sync\", \"async\"]\nblocks = \"@blocks.txt\"\neps = \"1e-6:1e-8:x10\"\n"
	path := filepath.Join(dir, "job.toml")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range spec.Sweep.Axes {
		names = append(names, a.Name+"="+strings.Join(a.Values, ","))
	}
	if want := []string{"n=8,12", "scheme=sync,async", "blocks=2x1x1,1x2x1", "eps=1e-06,1e-07,1e-08"}; !slices.Equal(names, want) {
		t.Errorf("axes %v, want %v", names, want)
	}
	pts, err := spec.Sweep.Points(DefaultMaxInstances)
	if err != nil || len(pts) != 24 {
		t.Fatalf("%d points, %v", len(pts), err)
	}
	inst, err := spec.At(pts[23])
	if err != nil {
		t.Fatal(err)
	}
	if inst.Sweep != nil || inst.Params["n"] != "12" || inst.Scheme != Asynchronous || inst.Detector != DetectActivity || inst.Params["eps"] != "1e-08" || !strings.HasSuffix(inst.Name, "#23") {
		t.Errorf("instance 23: %+v", inst)
	}
	if pts[23].Key() != "n=12 scheme=async blocks=1x2x1 eps=1e-08" {
		t.Errorf("key %q", pts[23].Key())
	}
}

func TestSweepSectionErrors(t *testing.T) {
	tests := map[string]struct {
		sweep string
		want  string
	}{
		"empty list":  {"n = []", "job.toml:5:1: sweep: n has an empty list of values"},
		"unknown":     {"n = [8]\nepsilon = [1e-6]", `job.toml:6:1: sweep: epsilon is no parameter of app poisson (did you mean "eps"?)`},
		"far unknown": {"zzzzzzz = [1]", "job.toml:5:1: sweep: zzzzzzz is no parameter of app poisson (its parameters: n, eps, blocks"},
		"bad value":   {"n = [8, 0]", "job.toml:5:1: sweep: n = 0: "},
		"bad scheme":  {"scheme = [\"sync\", \"fast\"]", `sweep: scheme = fast: scheme "fast" is unknown`},
		"not range":   {"n = \"8-64\"", "job.toml:5:1: sweep: n: \"8-64\" is not a range"},
		"bad range":   {"n = \"8:64:x0.5\"", "sweep: n: range \"8:64:x0.5\": the factor \"0.5\" must be a number above 1"},
		"no file":     {"blocks = \"@nothere.txt\"", "nothere.txt: no such file"},
		"nested":      {"n = [[8]]", "want strings, numbers or booleans in the list, not an array"},
		"a table":     {"n = { a = 1 }", "want a list"},
		"nodes 0":     {"nodes = [1, 0]", "nodes = 0: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.toml")
			job := "app = \"poisson\"\n[params]\neps = 1e-6\n[sweep]\n" + tc.sweep + "\n"
			if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadSpec(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
			if err != nil && !errors.Is(err, ErrSpec) {
				t.Errorf("error %v does not match ErrSpec", err)
			}
		})
	}
}

func TestSweepPointsCap(t *testing.T) {
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = "x"
	}
	sw := Sweep{Axes: []SweepAxis{{Name: "a", Values: vals}, {Name: "b", Values: vals}}}
	if _, err := sw.Points(DefaultMaxInstances); err == nil || !strings.Contains(err.Error(), "1000 × 1000") {
		t.Errorf("10⁶ instances: %v", err)
	}
	sw.Axes[1].Values = vals[:20]
	if pts, err := sw.Points(20_000); err != nil || len(pts) != 20_000 || pts[19_999].Index != 19_999 {
		t.Errorf("allowed: %d, %v", len(pts), err)
	}
}

// TestSweepAbsPaths: a swept file parameter is made absolute as [params]
// are, relative to the job file.
func TestSweepAbsPaths(t *testing.T) {
	s := Spec{App: "test-path", Sweep: &Sweep{Axes: []SweepAxis{{Name: "input", Values: []string{"a.mtx", "/m/b.mtx"}}}}}
	got := s.AbsPaths("/jobs")
	if v := got.Sweep.Axes[0].Values; v[0] != "/jobs/a.mtx" || v[1] != "/m/b.mtx" {
		t.Errorf("values %v", v)
	}
	if s.Sweep.Axes[0].Values[0] != "a.mtx" {
		t.Error("AbsPaths changed its receiver's sweep")
	}
}
