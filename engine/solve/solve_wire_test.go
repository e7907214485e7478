package solve

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestCtrlRoundTrip(t *testing.T) {
	tests := map[string]struct {
		kind     ctrlKind
		seq, arg uint64
		payload  []float64
	}{
		"token":        {ctrlConv, 1, 42, nil},
		"terminate":    {ctrlTerminate, 0, 0, nil},
		"section halo": {ctrlSectionHalo, 9, 7<<1 | 1, []float64{1.5, -2, math.Inf(1), 0}},
		"vote":         {ctrlSectionVote, 3, 7, []float64{1e-11}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			buf := make([]byte, ctrlHeader+8*len(tc.payload))
			m, err := decodeCtrl(encodeCtrl(buf, tc.kind, tc.seq, tc.arg, tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(tc.payload))
			if m.kind != tc.kind || m.seq != tc.seq || m.arg != tc.arg || !m.floats(got) {
				t.Fatalf("got %+v", m)
			}
			for i := range got {
				if got[i] != tc.payload[i] {
					t.Fatalf("payload[%d] = %v, want %v", i, got[i], tc.payload[i])
				}
			}
		})
	}
}

func TestCtrlRejectsMalformed(t *testing.T) {
	good := encodeCtrl(make([]byte, ctrlHeader), ctrlAck, 1, 0, nil)
	tests := map[string][]byte{
		"short":         good[:ctrlHeader-1],
		"kind zero":     append([]byte{0}, good[1:]...),
		"kind too big":  append([]byte{byte(ctrlKinds)}, good[1:]...),
		"reserved byte": append([]byte{good[0], 1}, good[2:]...),
		"ragged":        append(append([]byte(nil), good...), 1, 2, 3),
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeCtrl(b); !errors.Is(err, errWire) {
				t.Fatalf("err %v, want errWire", err)
			}
		})
	}
}

func TestActivityKindMapping(t *testing.T) {
	for k := MsgActivate; k <= MsgTerminate; k++ {
		back, ok := k.ctrl().activity()
		if !ok || back != k {
			t.Fatalf("%s → %d → %s, %v", k, k.ctrl(), back, ok)
		}
	}
	if _, ok := ctrlConv.activity(); ok {
		t.Fatal("tok_conv mapped to an activity message")
	}
}

// FuzzDecodeCtrl feeds control messages from a (possibly hostile) neighbour:
// decoding never panics, and what decodes re-encodes to the same bytes.
func FuzzDecodeCtrl(f *testing.F) {
	f.Add(encodeCtrl(make([]byte, ctrlHeader), ctrlConv, 1, 5, nil))
	f.Add(encodeCtrl(make([]byte, ctrlHeader+16), ctrlSectionHalo, 3, 4, []float64{1, 2}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeCtrl(b)
		if err != nil {
			return
		}
		v := make([]float64, len(m.payload)/8)
		if !m.floats(v) {
			t.Fatal("payload of a decoded message does not convert")
		}
		again := encodeCtrl(make([]byte, len(b)), m.kind, m.seq, m.arg, v)
		if string(again) != string(b) {
			t.Fatalf("re-encoding differs: %x vs %x", again, b)
		}
	})
}

func TestSwitchTimerAdapts(t *testing.T) {
	now := time.Unix(0, 0)
	tests := map[string]struct {
		sigma float64
		want  time.Duration
	}{
		"far from ε: longer asynchronous runs": {1e-3, 20 * time.Millisecond},
		"near ε: test sooner":                  {1e-9, 5 * time.Millisecond},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tm := NewSwitchTimer(10*time.Millisecond, now)
			if tm.Due(now.Add(9 * time.Millisecond)) {
				t.Fatal("due early")
			}
			tm.Restart(now, tc.sigma, 1e-10)
			if tm.Period != tc.want {
				t.Fatalf("period %v, want %v", tm.Period, tc.want)
			}
			if !tm.Due(now.Add(tc.want)) {
				t.Fatal("not due at the end of the period")
			}
		})
	}
	tm := NewSwitchTimer(10*time.Millisecond, now)
	for range 20 {
		tm.Restart(now, 1, 1e-10)
	}
	if tm.Period != tm.Max {
		t.Fatalf("period %v grew past Max %v", tm.Period, tm.Max)
	}
}

func TestSectionVote(t *testing.T) {
	tests := map[string]struct {
		a, b SectionVote
		stop bool
	}{
		"all converged":     {SectionVote{OK: true, Sigma: 1}, SectionVote{OK: true, Sigma: 2}, true},
		"one not converged": {SectionVote{OK: true}, SectionVote{OK: false}, false},
		"one exhausted":     {SectionVote{OK: false, Exhausted: true}, SectionVote{OK: false}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v := tc.a.And(tc.b)
			if v.Stop() != tc.stop || v.Sigma != max(tc.a.Sigma, tc.b.Sigma) {
				t.Fatalf("got %+v", v)
			}
			if back := voteOf(v.flags(), v.Sigma); back != v {
				t.Fatalf("flags round trip %+v → %+v", v, back)
			}
		})
	}
}
