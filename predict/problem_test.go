package predict

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"

	_ "github.com/gridtui/gridtui/apps/exec"
	_ "github.com/gridtui/gridtui/apps/poisson"
	_ "github.com/gridtui/gridtui/apps/sparse"
)

// TestNoTraceSuggestsDeclaredParams: what to run first names only the
// parameters the application declares: no n for sparse or exec, whose
// problems have none.
func TestNoTraceSuggestsDeclaredParams(t *testing.T) {
	cases := []struct {
		p         Problem
		want, not []string
	}{
		{Problem{App: "obstacle", N: 48, Eps: 1e-8}, []string{"of obstacle n = 48, ε = 1e-08 ", "gridtui run --n 48 --eps 1e-08 --scheme sync"}, nil},
		{Problem{App: "poisson", N: 48, Eps: 1e-8}, []string{"of poisson n = 48, ε = 1e-08 ", "--app poisson --param n=48 --param eps=1e-08 --scheme"}, nil},
		{Problem{App: "sparse", Eps: 1e-10}, []string{"of sparse ε = 1e-10 ", "--app sparse --param eps=1e-10 --scheme"}, []string{"n =", "n=0"}},
		{Problem{App: "exec", Eps: 1e-8}, []string{"of exec ε = 1e-08 ", "--app exec --param eps=1e-08 --scheme"}, []string{"n =", "n=0"}},
	}
	for _, tc := range cases {
		_, err := Build(&jobs.Results{}, tc.p)
		if !errors.Is(err, ErrNoTrace) {
			t.Fatalf("%s: %v, want ErrNoTrace", tc.p.App, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.p.App, err, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q has %q", tc.p.App, err, w)
			}
		}
	}
}

// TestProblemIdentity: the predictor rests on runs of the same problem —
// a sparse run on another matrix is no trace of this one, and a poisson
// run with blocks = 2x2x1 is one of blocks = auto (blocks is layout).
func TestProblemIdentity(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.mtx", "one"), write("b.mtx", "two")
	rec := func(app string, params map[string]string) jobs.RunRecord {
		r := record("r", jobs.Synchronous, 10, 10, false)
		r.Job.App, r.Job.Params, r.Job.N = app, params, 0
		return r
	}
	problem := func(app string, params map[string]string) Problem {
		p, err := ProblemOf(jobs.Spec{App: app, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	onA := rec("sparse", map[string]string{"matrix": a, "eps": "1e-10"})
	onA.Job.Eps = 1e-10
	if traced(onA, problem("sparse", map[string]string{"matrix": b, "eps": "1e-10"})) {
		t.Error("a run on matrix a is a trace of matrix b")
	}
	if !traced(onA, problem("sparse", map[string]string{"matrix": a, "eps": "1e-10"})) {
		t.Error("a run on matrix a is no trace of matrix a")
	}
	blocks := rec("poisson", map[string]string{"n": "8", "eps": "1e-6", "blocks": "2x1x1"})
	blocks.Job.N, blocks.Job.Eps = 8, 1e-6
	if !traced(blocks, problem("poisson", map[string]string{"n": "8", "eps": "1e-6"})) {
		t.Error("a run with blocks = 2x1x1 is no trace of blocks = auto")
	}
}
