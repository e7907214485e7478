package worker

import (
	"bytes"
	"slices"
	"testing"
)

// TestCopyFraming: a msgCopy's pins and container round-trip; a short body
// is refused.
func TestCopyFraming(t *testing.T) {
	m := encodeCopy([]uint64{50, 25}, []byte("GTCK…"))
	if MsgType(m[0]) != MsgCopy {
		t.Fatalf("type %d", m[0])
	}
	pins, enc, err := decodeCopy(m[1:])
	if err != nil || !slices.Equal(pins, []uint64{50, 25}) || !bytes.Equal(enc, []byte("GTCK…")) {
		t.Fatalf("%v %v %q", err, pins, enc)
	}
	for _, b := range [][]byte{nil, {1}, {3, 0, 1, 2}} {
		if _, _, err := decodeCopy(b); err == nil {
			t.Errorf("%v: no error", b)
		}
	}
}

// TestThin: the copies a part reports: the newest few and a sparse tail.
func TestThin(t *testing.T) {
	var held []uint64
	for it := uint64(1000); it >= 25; it -= 25 {
		held = append(held, it)
	}
	got := thin(held, 25)
	want := []uint64{1000, 975, 950, 925, 800} // 1000 is the newest multiple of 100, 800 of 400
	if !slices.Equal(got, want) {
		t.Fatalf("thin: %v, want %v", got, want)
	}
}

// FuzzDecodeCopy: a copy from a peer never panics the decoder.
func FuzzDecodeCopy(f *testing.F) {
	f.Add(encodeCopy([]uint64{1, 2}, []byte("x"))[1:])
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		pins, enc, err := decodeCopy(b)
		if err == nil && 2+8*len(pins)+len(enc) != len(b) {
			t.Fatalf("decoded %d pins and %d bytes from %d", len(pins), len(enc), len(b))
		}
	})
}
