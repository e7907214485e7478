package jobs

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleRecord(grid string, scheme Scheme, nodes, cores int, wall float64) RunRecord {
	return RunRecord{
		Time: time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC),
		Job: RunConfig{App: "obstacle", N: 256, Eps: paperEps, Scheme: scheme, Nodes: nodes,
			Cores: cores, Grid: grid},
		WallSeconds: wall,
		Outcome:     OutcomeOK,
	}
}

func TestAppendLoadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	res := Float(3e-12)
	rec := sampleRecord("alpha", Synchronous, 2, 4, 12.5)
	rec.Machine = LocalMachine()
	rec.Nodes = []NodeRecord{{Name: "alpha-1", Rank: 0, Cores: 2, Iterations: 100, Sigma: 1e-12,
		Stats: map[string]float64{"bytes.infiniband": 1024}}}
	rec.Residuals = []ResidualSample{{Iteration: 1, Seconds: 0.1, Sigma: 0.5}, {Iteration: 100, Seconds: 12, Sigma: 1e-12}}
	rec.TrueResidual = &res
	rec.Complementarity = &Complementarity{MinUMinusPhi: 0, MinAuMinusF: -1e-9, MaxProduct: 1e-10, Tol: 1e-6, OK: true}
	if err := Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID == "" || rec.Version != RecordVersion {
		t.Fatalf("Append did not fill id/version: %+v", rec)
	}
	failed := sampleRecord("alpha", Asynchronous, 2, 4, 3)
	failed.Outcome, failed.Reason = OutcomeFailed, "node alpha-2 lost"
	failed.Nodes = []NodeRecord{{Name: "alpha-2", Sigma: Float(math.NaN())}}
	failed.Complementarity = &Complementarity{MinUMinusPhi: math.NaN(), MaxProduct: math.Inf(1)}
	if err := Append(dir, &failed); err != nil {
		t.Fatalf("a failed run with NaN figures must still be recorded: %v", err)
	}
	got, err := Load(dir)
	if err != nil || len(got.Records) != 2 || len(got.Corrupt) != 0 || got.Truncated {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	r0 := got.Records[0]
	if r0.ID != rec.ID || !r0.Time.Equal(rec.Time) || !reflect.DeepEqual(r0.Job, rec.Job) || r0.Wall() != 12500*time.Millisecond ||
		*r0.TrueResidual != res || *r0.Complementarity != *rec.Complementarity ||
		r0.Nodes[0].Stats["bytes.infiniband"] != 1024 || r0.Residuals[1].Sigma != 1e-12 || r0.Machine != rec.Machine {
		t.Fatalf("record 0 = %+v, want %+v", r0, rec)
	}
	r1 := got.Records[1]
	if r1.Reason != failed.Reason || r1.OK() || !math.IsNaN(float64(r1.Nodes[0].Sigma)) ||
		!math.IsNaN(r1.Complementarity.MinUMinusPhi) || !math.IsInf(r1.Complementarity.MaxProduct, 1) {
		t.Fatalf("record 1 = %+v", r1)
	}
}

func TestLoadTolerance(t *testing.T) {
	good := func(wall float64) string {
		r := sampleRecord("alpha", Synchronous, 1, 2, wall)
		r.ID = "x"
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name         string
		content      string
		records      int
		corruptLines []int
		truncated    bool
	}{
		{"empty", "", 0, nil, false},
		{"blank lines", "\n\n" + good(1) + "\n\n", 1, nil, false},
		{"truncated tail", good(1) + "\n" + good(2)[:30], 1, nil, true},
		{"last line without newline", good(1) + "\n" + good(2), 2, nil, false},
		{"corrupt middle", good(1) + "\n{not json\n" + good(2) + "\n\"str\"\n", 2, []int{2, 4}, false},
		{"corrupt and truncated", "garbage\n" + good(1) + "\n{\"v\":", 1, []int{1}, true},
		// Valid JSON that is no record would list as blank runs.
		{"json but no record", good(1) + "\nnull\n{}\n{\"v\":1,\"id\":\"y\"}\n[]\n" + good(2), 2, []int{2, 3, 4, 5}, false},
		{"empty object at the end", good(1) + "\n{}", 1, []int{2}, false},
		// An application that declares no n records n = 0 (sparse, exec):
		// such runs were refused on every read, and gone from the tables.
		{"sparse run, no n", good(1) + "\n" + `{"v":1,"id":"s","job":{"app":"sparse","n":0,"eps":1e-10,"scheme":"async","nodes":4,"cores":4,"grid":"alpha","params":{"eps":"1e-10"}},"wall_seconds":1,"outcome":"ok"}`, 2, nil, false},
		{"obstacle run, no n", good(1) + "\n" + `{"v":1,"id":"o","job":{"app":"obstacle","n":0,"eps":1e-8,"scheme":"sync","nodes":1,"cores":1,"grid":"alpha"},"wall_seconds":1,"outcome":"ok"}`, 1, []int{2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, c := range got.Corrupt {
				lines = append(lines, c.Line)
				if !errors.Is(c, ErrResults) && !strings.Contains(c.Error(), ResultsFile) {
					t.Errorf("corrupt-line error %q does not name the file", c)
				}
			}
			if len(got.Records) != tc.records || got.Truncated != tc.truncated || !equalInts(lines, tc.corruptLines) {
				t.Fatalf("records %d truncated %v corrupt %v; want %d %v %v",
					len(got.Records), got.Truncated, lines, tc.records, tc.truncated, tc.corruptLines)
			}
			if (got.Err() != nil) != (len(tc.corruptLines) > 0) {
				t.Fatalf("Err() = %v", got.Err())
			}
		})
	}
}

// TestAppendAfterTruncatedTail: a crash mid-append leaves a partial line;
// the next record must still be readable (on its own line).
func TestAppendAfterTruncatedTail(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(`{"v":1,"id":"cut`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := sampleRecord("alpha", Synchronous, 1, 1, 5)
	if err := Append(dir, &rec); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 1 || got.Records[0].ID != rec.ID || len(got.Corrupt) != 1 || got.Corrupt[0].Line != 1 {
		t.Fatalf("Load = %+v", got)
	}
}

func TestLoadMissingAndUnreadable(t *testing.T) {
	got, err := Load(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(got.Records) != 0 {
		t.Fatalf("missing store: %+v, %v", got, err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ResultsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrResults) || !strings.Contains(err.Error(), ResultsFile) {
		t.Fatalf("Load of a directory = %v, want ErrResults naming the file", err)
	}
	rec := sampleRecord("a", Synchronous, 1, 1, 1)
	if err := Append(dir, &rec); !errors.Is(err, ErrResults) {
		t.Fatalf("Append to a directory = %v, want ErrResults", err)
	}
}

func TestDataDir(t *testing.T) {
	for _, tc := range []struct {
		name, setting, env, xdg, want string
	}{
		{"setting wins", "/opt/set", "/opt/env", "/opt/xdg", "/opt/set"},
		{"env", "", "/opt/env", "/opt/xdg", "/opt/env"},
		{"xdg", "", "", "/opt/xdg", "/opt/xdg/gridtui"},
		{"relative xdg ignored", "", "", "rel", "HOME/.local/share/gridtui"},
		{"home", "", "", "", "HOME/.local/share/gridtui"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(DataDirEnv, tc.env)
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			t.Setenv("HOME", "/home/u")
			got, err := DataDir(tc.setting)
			want := strings.Replace(tc.want, "HOME", "/home/u", 1)
			if err != nil || got != want {
				t.Fatalf("DataDir = %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestFastestSingleNode(t *testing.T) {
	slow := sampleRecord("beta", Synchronous, 1, 8, 300)
	fast := sampleRecord("alpha", Asynchronous, 1, 4, 200)
	fast.Residuals = []ResidualSample{{Iteration: 1, Seconds: 1, Sigma: 1}}
	failed := sampleRecord("alpha", Synchronous, 1, 4, 50)
	failed.Outcome = OutcomeFailed
	otherN := sampleRecord("alpha", Synchronous, 1, 4, 10)
	otherN.Job.N = 128
	otherEps := sampleRecord("alpha", Synchronous, 1, 4, 10)
	otherEps.Job.Eps = 1e-8
	multi := sampleRecord("alpha", Synchronous, 2, 8, 20)
	elsewhere := sampleRecord("alpha", Synchronous, 1, 4, 5) // another inventory's alpha
	elsewhere.Job.Inventory = "/grid/sites.toml"
	rs := &Results{Records: []RunRecord{slow, fast, failed, otherN, otherEps, multi, elsewhere}}
	for grid, want := range map[string]time.Duration{"alpha": 200 * time.Second, "beta": 300 * time.Second, "alpha+beta": 200 * time.Second} {
		t1, ok := rs.FastestSingleNode(256, paperEps, "", grid)
		if !ok || t1 != want {
			t.Fatalf("FastestSingleNode of %s = %v, %v; want %v", grid, t1, ok, want)
		}
	}
	t1, _ := rs.FastestSingleNode(256, paperEps, "", "alpha")
	ref, _ := rs.SingleNodeReference(256, paperEps, "", "alpha")
	if len(ref.Residuals) != 1 {
		t.Fatal("SingleNodeReference did not return the fastest record")
	}
	if t1, ok := rs.FastestSingleNode(256, paperEps, "/grid/sites.toml", "beta"); !ok || t1 != 5*time.Second {
		t.Fatalf("FastestSingleNode of another inventory = %v, %v; want its own 5s", t1, ok)
	}
	if _, ok := rs.FastestSingleNode(256, paperEps, "embedded", "alpha"); ok {
		t.Fatal("FastestSingleNode found a run of an inventory with none")
	}
	if _, ok := rs.FastestSingleNode(64, paperEps, "", "alpha"); ok {
		t.Fatal("FastestSingleNode found a run for n = 64")
	}
	if g := ComputingGain(t1, 50*time.Second); g != 4 {
		t.Fatalf("ComputingGain = %v, want 4", g)
	}
	if g := ComputingGain(t1, 0); g != 0 {
		t.Fatalf("ComputingGain with ts = 0 is %v, want 0", g)
	}
}

func TestGridLabel(t *testing.T) {
	if got := GridLabel([]string{"graphene", "chinqchint", "graphene", ""}); got != "chinqchint+graphene" {
		t.Fatalf("GridLabel = %q", got)
	}
}

func TestFloatJSON(t *testing.T) {
	for _, v := range []float64{0, -1.5, 1e-300, math.NaN(), math.Inf(1), math.Inf(-1)} {
		b, err := json.Marshal(Float(v))
		if err != nil {
			t.Fatal(err)
		}
		var f Float
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(float64(f)) != math.Float64bits(v) && !(math.IsNaN(v) && math.IsNaN(float64(f))) {
			t.Fatalf("%v → %s → %v", v, b, f)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"bogus"`), &f); err == nil {
		t.Fatal("bogus number accepted")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLoadOlderRecords: records written before the application's checks
// (CheckRecord) still load: an obstacle run's complementarity becomes its
// three checks, a poisson run's meaningless zero complementarity (every
// application's record carried one) is no check at all, and the two
// obstacle records, old (n and ε only) and new (its parameters), are one
// problem.
func TestLoadOlderRecords(t *testing.T) {
	old := `{"v":1,"id":"o","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"sync","nodes":1,"cores":1,"grid":"alpha"},"wall_seconds":1,"outcome":"ok","true_residual":9e-9,"complementarity":{"min_u_minus_phi":0,"min_au_minus_f":-1e-7,"max_product":2e-6,"tol":0.01,"ok":true}}
{"v":1,"id":"p","job":{"app":"poisson","n":16,"eps":1e-8,"scheme":"sync","nodes":1,"cores":1,"grid":"alpha","params":{"n":"16","eps":"1e-08","blocks":"auto"}},"wall_seconds":1,"outcome":"ok","true_residual":9e-9,"complementarity":{"min_u_minus_phi":0,"min_au_minus_f":0,"max_product":0,"tol":0,"ok":false}}
{"v":1,"id":"n","job":{"app":"obstacle","n":48,"eps":1e-8,"scheme":"sync","nodes":1,"cores":1,"grid":"alpha","params":{"n":"48","eps":"1e-08"}},"wall_seconds":1,"outcome":"ok","true_residual":9e-9,"checks":[{"name":"c","value":1,"ok":true}]}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Load(dir)
	if err != nil || len(res.Records) != 3 || res.Err() != nil {
		t.Fatalf("Load: %v, %d records, %v", err, len(res.Records), res.Err())
	}
	o, p, n := res.Records[0], res.Records[1], res.Records[2]
	if cs := o.AppChecks(); len(cs) != 3 || !o.ChecksOK() || !strings.Contains(cs[2].Name, "complementarity") {
		t.Errorf("old obstacle record's checks %+v", cs)
	}
	if cs := p.AppChecks(); len(cs) != 0 || !p.ChecksOK() {
		t.Errorf("old poisson record's checks %+v, want none", cs)
	}
	if cs := n.AppChecks(); len(cs) != 1 || cs[0].Name != "c" {
		t.Errorf("new record's checks %+v", cs)
	}
	if !o.Job.Instance().Equal(n.Job.Instance()) {
		t.Errorf("old and new obstacle records are different problems: %v, %v", o.Job.Instance(), n.Job.Instance())
	}
	if got := o.Job.AppParams(); got["n"] != "48" || got["eps"] != "1e-08" {
		t.Errorf("old record's parameters %v", got)
	}
}

// TestCorruptLineNotEchoed checks that a corrupt line of 20 MB is named in
// the warning, not printed in full, and its control characters quoted.
func TestCorruptLineNotEchoed(t *testing.T) {
	dir := t.TempDir()
	line := `{"id": "` + strings.Repeat("x", 20<<20) + `\u001b[2J", "job": {"n": -1}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Err().Error()
	if len(msg) > 1000 || !strings.Contains(msg, ":1: ") || !strings.Contains(msg, "bytes more") {
		t.Errorf("warning is %d bytes: %.300q", len(msg), msg)
	}
}
