package wirereader

import (
	"encoding/binary"
	"testing"
)

func TestReader(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 7)
	b = binary.LittleEndian.AppendUint64(b, 1<<40)
	b = append(b, "abc"...)
	r := Reader{B: b}
	if v := r.U32(); v != 7 {
		t.Fatalf("U32 = %d, want 7", v)
	}
	if v := r.U64(); v != 1<<40 {
		t.Fatalf("U64 = %d, want 2^40", v)
	}
	if v := string(r.Bytes(3)); v != "abc" || r.Bad || len(r.B) != 0 {
		t.Fatalf("Bytes = %q, Bad %v, %d left", v, r.Bad, len(r.B))
	}
	if r.U32(); !r.Bad {
		t.Fatal("U32 past the end is not Bad")
	}
	big := Reader{B: binary.LittleEndian.AppendUint64(nil, 1<<49)}
	if v := big.U64(); v != 0 || !big.Bad {
		t.Fatalf("U64 of 2^49 = %d, Bad %v: want refused", v, big.Bad)
	}
	neg := Reader{B: []byte("xy")}
	if neg.Bytes(-1); !neg.Bad {
		t.Fatal("Bytes(-1) is not Bad")
	}
}

// FuzzReader: no input makes a read panic, and a Bad reader never grows B.
func FuzzReader(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 'a'}, 1)
	f.Add([]byte{}, -3)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		r := Reader{B: b}
		before := len(r.B)
		r.U32()
		r.U64()
		r.Bytes(n)
		if len(r.B) > before {
			t.Fatalf("reader grew from %d to %d bytes", before, len(r.B))
		}
	})
}
