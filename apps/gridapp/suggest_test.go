package gridapp

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"obstacle", "poisson", "sparse", "heat", "exec", "sync", "async", "hybrid"}
	tests := map[string]string{"poison": "poisson", "asyn": "async", "sprse": "sparse", "Heat": "heat", "rod": "", "x": "", "m": "", "obstacles": "obstacle"}
	for in, want := range tests {
		if got := Closest(in, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}
