package bsp

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

func TestProfileOneGroupPerSuperstep(t *testing.T) {
	var p Profile
	p.Add(1, 2*time.Millisecond, 100)
	p.Add(3, time.Millisecond, 8) // two supersteps ended in shared memory before it
	got := p.Groups()
	want := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.002, H: 100}, {Supersteps: 3, Work: 0.001, H: 8}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("groups %+v, want %+v", got, want)
	}
}

func TestProfileBounded(t *testing.T) {
	var p Profile
	// 200 supersteps of 1 ms and h = s bytes: past 64 the groups merge
	// by pairs (width 2 up to 128 Adds, then 4), sums kept.
	for s := range 200 {
		p.Add(1, time.Millisecond, int64(s))
	}
	got := p.Groups()
	if len(got) > ProfileGroups {
		t.Fatalf("%d groups, at most %d", len(got), ProfileGroups)
	}
	// width 4: 50 groups of 4 supersteps.
	if len(got) != 50 {
		t.Fatalf("%d groups, want 50", len(got))
	}
	n, h := 0, int64(0)
	for i, g := range got {
		n += g.Supersteps
		h += g.H
		if g.Supersteps != 4 {
			t.Errorf("group %d: %d supersteps, want 4", i, g.Supersteps)
		}
	}
	if n != 200 || h != 199*200/2 {
		t.Errorf("%d supersteps, h %d; want 200, %d", n, h, 199*200/2)
	}
	// group 1 holds supersteps 4…7: h = 4+5+6+7.
	if got[1].H != 22 {
		t.Errorf("group 1's h %d, want 22", got[1].H)
	}
}

func TestMaxGroups(t *testing.T) {
	a := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.5, H: 10}, {Supersteps: 1, Work: 0.1, H: 0}}
	b := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.2, H: 30}, {Supersteps: 2, Work: 0.3, H: 4}}
	got := MaxGroups([][]gridapp.SuperstepGroup{a, nil, b})
	want := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.5, H: 30}, {Supersteps: 2, Work: 0.3, H: 4}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("combined %+v, want %+v", got, want)
	}
	if MaxGroups(nil) != nil {
		t.Error("no profiles combined into groups")
	}
}

func TestProfileEncoding(t *testing.T) {
	groups := []gridapp.SuperstepGroup{{Supersteps: 1, Work: 0.25, H: 16}, {Supersteps: 3, Work: 0.5}}
	r := make([]float64, ProfileLen)
	EncodeProfile(r, groups)
	got := DecodeProfile(r)
	if len(got) != 2 || got[0] != groups[0] || got[1] != groups[1] {
		t.Fatalf("decoded %+v, encoded %+v", got, groups)
	}
	for _, bad := range []float64{math.NaN(), -1, ProfileGroups + 1} {
		r[0] = bad
		if DecodeProfile(r) != nil {
			t.Errorf("a profile of %v groups decoded", bad)
		}
	}
	if DecodeProfile(r[:3]) != nil {
		t.Error("a short profile decoded")
	}
}

// FuzzDecodeProfile feeds DecodeProfile arbitrary values (a process's
// result, from another host): it must refuse or decode, never panic, and
// decode no negative figure.
func FuzzDecodeProfile(f *testing.F) {
	good := make([]float64, ProfileLen)
	EncodeProfile(good, []gridapp.SuperstepGroup{{Supersteps: 2, Work: 0.5, H: 8}})
	f.Add(floatBytes(good))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		v := make([]float64, ProfileLen)
		for i := 0; i+8 <= len(b) && i/8 < len(v); i += 8 {
			v[i/8] = math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		}
		for _, g := range DecodeProfile(v) {
			if g.Supersteps < 0 || g.Work < 0 || g.H < 0 {
				t.Fatalf("decoded a negative figure: %+v", g)
			}
		}
	})
}

func floatBytes(v []float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}
