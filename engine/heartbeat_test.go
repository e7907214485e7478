package engine

import (
	"testing"
	"time"
)

func TestLiveness(t *testing.T) {
	l := newLiveness(time.Second)
	t0 := time.Now()
	l.watch(1, "a")
	l.watchFor(2, "b", 3*time.Second)
	tests := map[string]struct {
		prev, now time.Time
		seen      []uint32
		want      []string
	}{
		"both fresh":              {prev: t0.Add(400 * time.Millisecond), now: t0.Add(500 * time.Millisecond)},
		"a silent":                {prev: t0.Add(1400 * time.Millisecond), now: t0.Add(1500 * time.Millisecond), want: []string{"a"}},
		"watcher stalled excuses": {prev: t0.Add(1500 * time.Millisecond), now: t0.Add(3500 * time.Millisecond)},
		"b silent after excuse":   {prev: t0.Add(6900 * time.Millisecond), now: t0.Add(7000 * time.Millisecond), want: []string{"b"}},
		"nothing left":            {prev: t0.Add(9900 * time.Millisecond), now: t0.Add(10 * time.Second)},
	}
	for _, name := range []string{"both fresh", "a silent", "watcher stalled excuses", "b silent after excuse", "nothing left"} {
		tc := tests[name]
		lost := l.check(tc.prev, tc.now)
		var got []string
		for _, p := range lost {
			got = append(got, p.Name)
		}
		if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
			t.Errorf("%s: lost %v, want %v", name, got, tc.want)
		}
	}
}
