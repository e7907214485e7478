package predict

import (
	"slices"
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

// TestSeparated: a ranking's measured order stands only when each
// scheme's slowest run is faster than the next scheme's fastest.
func TestSeparated(t *testing.T) {
	c := func(s jobs.Scheme, lo, hi float64) Case {
		return Case{Scheme: s, Measured: (lo + hi) / 2, MeasuredMin: lo, MeasuredMax: hi}
	}
	tests := []struct {
		name string
		cs   []Case
		want bool
	}{
		{"apart", []Case{c(jobs.Synchronous, 4.1, 4.2), c(jobs.Asynchronous, 2.3, 2.5), c(jobs.Hybrid, 3.0, 3.2)}, true},
		{"two overlap", []Case{c(jobs.Synchronous, 4.19, 4.19), c(jobs.Asynchronous, 4.8, 5.6), c(jobs.Hybrid, 4.1, 4.3)}, false},
		{"touching", []Case{c(jobs.Synchronous, 1, 2), c(jobs.Hybrid, 2, 3)}, false},
		{"one run each", []Case{c(jobs.Synchronous, 1, 1), c(jobs.Hybrid, 1.01, 1.01)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := separated(tc.cs); got != tc.want {
				t.Errorf("separated = %v, want %v", got, tc.want)
			}
			v := &Validation{Cases: tc.cs}
			v.rank()
			if len(v.Rankings) != 1 || v.Rankings[0].Separated != tc.want || (v.Separated == 1) != tc.want ||
				v.RankedSeparated > v.Separated || v.RankedSeparated > v.Ranked {
				t.Errorf("validation %+v", v)
			}
		})
	}
}

// onePointCase is a case of one run, measured and predicted as given.
func onePointCase(s jobs.Scheme, predicted, measured float64) Case {
	return Case{Scheme: s, Predicted: predicted, Measured: measured, MeasuredMin: measured, MeasuredMax: measured}
}

// rankOne ranks the cases of one configuration and returns the validation
// with its one ranking.
func rankOne(t *testing.T, cs []Case) (*Validation, Ranking) {
	t.Helper()
	v := &Validation{Cases: cs}
	v.rank()
	if len(v.Rankings) != 1 {
		t.Fatalf("rankings %+v", v.Rankings)
	}
	return v, v.Rankings[0]
}

// TestRankTies: a ranking is right when the prediction orders every pair
// of schemes as the measurements do; a tie on one side only (which the
// sorted lists would break by the cases' order) is wrong, a tie on both
// sides right, and the ties are reported.
func TestRankTies(t *testing.T) {
	c := onePointCase
	tests := []struct {
		name          string
		cs            []Case
		right         bool
		predictedTies []bool
		measuredTies  []bool
	}{
		{"same order", []Case{c(jobs.Synchronous, 3, 4), c(jobs.Asynchronous, 1, 2), c(jobs.Hybrid, 2, 3)}, true, nil, nil},
		{"swapped", []Case{c(jobs.Synchronous, 2, 4), c(jobs.Asynchronous, 1, 2), c(jobs.Hybrid, 3, 3)}, false, nil, nil},
		// Listed in the measured order: sorting the predicted tie stably
		// would have matched it.
		{"predicted tie", []Case{c(jobs.Synchronous, 1, 1), c(jobs.Asynchronous, 2, 2), c(jobs.Hybrid, 2, 3)}, false,
			[]bool{false, true}, nil},
		{"measured tie", []Case{c(jobs.Synchronous, 1, 1), c(jobs.Asynchronous, 2, 2), c(jobs.Hybrid, 3, 2)}, false,
			nil, []bool{false, true}},
		{"both tied", []Case{c(jobs.Synchronous, 1, 1), c(jobs.Asynchronous, 2, 2), c(jobs.Hybrid, 2, 2)}, true,
			[]bool{false, true}, []bool{false, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, r := rankOne(t, tc.cs)
			if r.Right != tc.right || (v.Ranked == 1) != tc.right || !slices.Equal(r.PredictedTies, tc.predictedTies) ||
				!slices.Equal(r.MeasuredTies, tc.measuredTies) {
				t.Errorf("ranking %+v, want right %v, ties %v and %v", r, tc.right, tc.predictedTies, tc.measuredTies)
			}
		})
	}
}

// TestCalled: a ranking is called when no two schemes' predicted times lie
// within CloseCall of each other, and the called rankings are counted with
// those of them in the measured order.
func TestCalled(t *testing.T) {
	c := onePointCase
	tests := []struct {
		name   string
		cs     []Case
		called bool
		right  bool
	}{
		{"apart and right", []Case{c(jobs.Synchronous, 4, 4.1), c(jobs.Asynchronous, 2, 2.1), c(jobs.Hybrid, 3, 3.2)}, true, true},
		{"apart and wrong", []Case{c(jobs.Synchronous, 4, 2.5), c(jobs.Asynchronous, 2, 3), c(jobs.Hybrid, 3, 3.2)}, true, false},
		{"two within 5 %", []Case{c(jobs.Synchronous, 14, 14), c(jobs.Asynchronous, 5.5, 5.6), c(jobs.Hybrid, 5.6, 5.5)}, false, false},
		{"at 5 %", []Case{c(jobs.Synchronous, 2.1, 2.1), c(jobs.Hybrid, 2, 2)}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, r := rankOne(t, tc.cs)
			rightCalled := 0
			if tc.called && tc.right {
				rightCalled = 1
			}
			if r.Called != tc.called || r.Right != tc.right || (v.Called == 1) != tc.called || v.RankedCalled != rightCalled {
				t.Errorf("ranking %+v, validation called %d right %d; want called %v, right %v", r, v.Called, v.RankedCalled, tc.called, tc.right)
			}
		})
	}
}

// TestPairs: every pair of schemes in a ranking counts once, right when
// the prediction orders it as measured, and close when its predicted
// times are within CloseCall of each other.
func TestPairs(t *testing.T) {
	c := onePointCase
	v := &Validation{Cases: []Case{
		// sync–async right and far apart, async–hybrid swapped and close
		// (2 against 2.05), sync–hybrid right and far apart.
		c(jobs.Synchronous, 4, 4), c(jobs.Asynchronous, 2, 3), c(jobs.Hybrid, 2.05, 2.5),
		// Two schemes on 8 nodes: swapped, far apart.
		{Scheme: jobs.Synchronous, Nodes: 8, Predicted: 1, Measured: 2, MeasuredMin: 2, MeasuredMax: 2},
		{Scheme: jobs.Asynchronous, Nodes: 8, Predicted: 2, Measured: 1, MeasuredMin: 1, MeasuredMax: 1},
	}}
	v.rank()
	if len(v.Rankings) != 2 {
		t.Fatalf("rankings %+v", v.Rankings)
	}
	if v.Pairs != 4 || v.PairsRight != 2 || v.ClosePairs != 1 || v.ClosePairsRight != 0 {
		t.Errorf("pairs %d right %d, close %d right %d; want 4, 2, 1, 0", v.Pairs, v.PairsRight, v.ClosePairs, v.ClosePairsRight)
	}
}
