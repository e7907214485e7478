package predict

import (
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

func TestFitLine(t *testing.T) {
	pt := func(nodes int, f float64) FitPoint { return FitPoint{Nodes: nodes, Measured: f} }
	tests := []struct {
		name string
		pts  []FitPoint
		want RoundsLine
		at16 float64
	}{
		{"none: one round per iteration", nil, RoundsLine{A: 1}, 1},
		{"one node count: the mean", []FitPoint{pt(2, 1), pt(2, 3)}, RoundsLine{A: 2}, 2},
		{"line in log2", []FitPoint{pt(2, 1), pt(4, 1.5)}, RoundsLine{A: 0.5, B: 0.5}, 2.5},
		{"falling is noise: the mean", []FitPoint{pt(2, 2), pt(4, 1)}, RoundsLine{A: 1.5}, 1.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := fitLine(tc.pts)
			if !near(l.A, tc.want.A) || !near(l.B, tc.want.B) || !near(l.At(16), tc.at16) {
				t.Errorf("%+v at 16 = %g, want %+v, %g", l, l.At(16), tc.want, tc.at16)
			}
		})
	}
	if l := fitSyncLine([][2]float64{{2, 869}, {4, 873}}); !near(l.A, 865) || !near(l.B, 2) {
		t.Errorf("sync line %+v, want 865 + 2·nodes", l)
	}
}

// TestValidate predicts the harness's recorded 4-node runs from its 1- and
// 2-node runs: every case of n = 48 and 64 has a prediction against the
// median of its two runs, the schemes are ranked, the summary adds up.
func TestValidate(t *testing.T) {
	res, err := jobs.Load("testdata/harness-100mbit")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Validate(res, 2, 0.15, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 6 || v.Predicted() != 6 || len(v.Rankings) != 2 {
		t.Fatalf("%d cases (%d predicted), %d rankings: %+v", len(v.Cases), v.Predicted(), len(v.Rankings), v.Cases)
	}
	within := 0
	for _, c := range v.Cases {
		if c.Nodes != 4 || c.Runs != 2 || c.Measured < c.MeasuredMin || c.Measured > c.MeasuredMax || c.Predicted <= 0 {
			t.Errorf("case %+v", c)
		}
		if abs(c.Error) <= 0.15 {
			within++
		}
	}
	if within != v.Within {
		t.Errorf("within %d, counted %d", v.Within, within)
	}
	if _, err := Validate(res, 0, 0.15, 0); err == nil {
		t.Error("max trace nodes 0 accepted")
	}
}
