package predict

import (
	"errors"
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
