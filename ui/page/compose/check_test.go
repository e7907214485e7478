package compose

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestComposeListsAllProblems: with n = -5 and ε = abc both fields are
// reported (before, only ε was: "1 problem(s)"); max iterations, ε and wall
// time of 0, which the defaults would silently replace, are refused; cores
// 0 is accepted and explained on the form. Every field with a problem is
// marked ✗.
func TestComposeListsAllProblems(t *testing.T) {
	c := testCommon(80, 24)
	cases := []struct {
		name  string
		edit  map[any]string // a fixed field's id, or a parameter's name
		want  []string
		marks []any
	}{
		{name: "n and eps", edit: map[any]string{"n": "-5", "eps": "abc"},
			want: []string{`eps: "abc" is not a finite number (want > 0)`, "n: -5 is outside 1…4096"}, marks: []any{"n", "eps"}},
		{name: "zeros", edit: map[any]string{fMaxIter: "0", fWall: "0s", "eps": "0"},
			want:  []string{"Max iterations: 0 must be at least 1", "Wall time: 0 must be positive", "eps: 0 is outside > 0"},
			marks: []any{fMaxIter, fWall, "eps"}},
		{name: "negative", edit: map[any]string{fCores: "-1", fMaxIter: "-3", fAny: "-2"},
			want:  []string{"Cores per node: cores = -1 is out of range", "Max iterations: max_iterations = -3 must not be negative", "Take N nodes: -2 must not be negative"},
			marks: []any{fCores, fMaxIter, fAny}},
	}
	field := func(v *Model, k any) *field {
		if name, ok := k.(string); ok {
			return v.param(name)
		}
		return v.field(k.(int))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := composeWith(c, inventory.Embedded(), "alpha-1", "alpha-2")
			for f, val := range tc.edit {
				field(&v, f).Value = val
			}
			v.validate()
			probs := strings.Join(v.Problems(), "\n")
			for _, w := range tc.want {
				if !strings.Contains(probs, w) {
					t.Errorf("problems\n%s\ndo not say %q", probs, w)
				}
			}
			if len(v.Problems()) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", len(v.Problems()), len(tc.want), probs)
			}
			for _, k := range tc.marks {
				if f := field(&v, k); !v.badFields[f.ID] {
					t.Errorf("field %s not marked", f.Label)
				}
			}
			if !strings.Contains(ansiStrip(v.View()), "✗") {
				t.Errorf("no field marked ✗:\n%s", ansiStrip(v.View()))
			}
		})
	}
	v := composeWith(c, inventory.Embedded(), "alpha-1")
	v.field(fCores).Value = "0"
	v.validate()
	if len(v.Problems()) != 0 || !strings.Contains(ansiStrip(v.View()), "0 = all cores") {
		t.Errorf("cores 0: problems %q, view:\n%s", v.Problems(), ansiStrip(v.View()))
	}
}
