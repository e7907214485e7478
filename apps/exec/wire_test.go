package exec

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// FuzzDecodeHeader: any 16 bytes from a program decode to a checked header
// or an error, never a panic, and a header that decodes encodes back to the
// same bytes.
func FuzzDecodeHeader(f *testing.F) {
	for _, h := range []header{{kind: kindHello, len: 4}, {kind: kindSend, flags: 1, arg: 3},
		{kind: kindReceive, flags: 1}, {kind: kindIterate, len: 8}, {kind: kindAbort, flags: 1, len: 40}} {
		var b [headerLen]byte
		h.encode(b[:])
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < headerLen {
			return
		}
		h, err := decodeHeader(b[:headerLen])
		if err != nil {
			return
		}
		if h.kind < kindHello || h.kind > kindOutcome || h.len > maxPayload {
			t.Fatalf("decoded an unchecked header %+v", h)
		}
		var out [headerLen]byte
		h.encode(out[:])
		if !bytes.Equal(out[:], b[:headerLen]) {
			t.Fatalf("round trip: % x → % x", b[:headerLen], out)
		}
	})
}

// TestSubtaskLayout pins the reply to GRID_Init that gridhpc.c decodes.
func TestSubtaskLayout(t *testing.T) {
	m := subtaskMsg{rank: 1, ranks: 3, cores: 2, neighbours: []int{0, 2}, lo: 4, hi: 8, unit: 16, size: 64, eps: 1e-8, halo: 16, params: "a=1"}
	b := m.encode()
	le := binary.LittleEndian
	for _, c := range []struct {
		off  int
		want uint64
		u32  bool
	}{{0, 1, true}, {4, 3, true}, {8, 2, true}, {12, 2, true}, {16, 4, false}, {24, 8, false}, {32, 16, false}, {40, 64, false},
		{56, 0, false}, {64, 128, false}, {72, 2, false}, {80, 128, false}} {
		got := le.Uint64(b[c.off:])
		if c.u32 {
			got = uint64(le.Uint32(b[c.off:]))
		}
		if got != c.want {
			t.Errorf("offset %d: %d, want %d", c.off, got, c.want)
		}
	}
	if math.Float64frombits(le.Uint64(b[48:])) != 1e-8 || string(b[88:]) != "a=1\x00" || len(b) != 92 {
		t.Errorf("eps or params: % x", b[48:])
	}
}

// TestStringFloats: the address a worker trades with its neighbours'
// survives the packing into CTRL values.
func TestStringFloats(t *testing.T) {
	for _, s := range []string{"", "tcp://127.0.0.1:4242", "unix:///tmp/gridhpc-123/p.sock", strings.Repeat("x", 200)} {
		if got := floatsString(stringFloats(s)); got != s {
			t.Errorf("%q: got %q", s, got)
		}
	}
}

// FuzzFloatsString: whatever a neighbour's worker sends, unpacking it
// returns a string or "", never panics.
func FuzzFloatsString(f *testing.F) {
	f.Add(5.0, 1.5, 2.5)
	f.Add(math.NaN(), 0.0, 0.0)
	f.Add(-1.0, 0.0, 0.0)
	f.Add(1e300, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c float64) {
		for n := range 4 {
			floatsString([]float64{a, b, c}[:n])
		}
	})
}
