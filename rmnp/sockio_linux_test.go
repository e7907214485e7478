package rmnp

import (
	"testing"
	"unsafe"
)

// TestAdvance checks the vector bookkeeping after short writes, at and inside
// buffer boundaries.
func TestAdvance(t *testing.T) {
	a, b, c := []byte("hdr"), []byte("pad!"), []byte("payload")
	all := "hdrpad!payload"
	for n := 0; n <= len(all); n++ {
		var s sysCall
		s.set(a, b, c)
		s.advance(n)
		var got []byte
		for i := 0; i < s.cnt; i++ {
			got = append(got, unsafe.Slice(s.iov[i].Base, s.iov[i].Len)...)
		}
		if string(got) != all[n:] || s.total != len(all)-n {
			t.Fatalf("advance(%d): %q (total %d), want %q", n, got, s.total, all[n:])
		}
	}
}
