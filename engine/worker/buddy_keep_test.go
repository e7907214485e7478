package worker

import (
	"bytes"
	"testing"

	"github.com/gridtui/gridtui/internal/checkpoint"
)

// TestKeepCopyInPlace: a buddy's copy is kept in the buffer it was received
// into (the store's bytes are the message's), a refused one is not kept,
// and the control loop's next buffer is never one the store keeps.
func TestKeepCopyInPlace(t *testing.T) {
	n := &node{copies: newCopyStore()}
	h := checkpoint.Header{Run: "r", Rank: 1, Ranks: 2, Iteration: 200}
	enc, err := checkpoint.Append(nil, h, bytes.Repeat([]byte{7}, 10000))
	if err != nil {
		t.Fatal(err)
	}
	m := encodeCopy([]uint64{200}, enc)
	if err := n.keepCopy(3, m[1:], m); err != nil {
		t.Fatal(err)
	}
	got := n.copies.mem.Encoded(h, 200, false)
	if !bytes.Equal(got, enc) {
		t.Fatal("the copy kept is not the one sent")
	}
	m[len(m)-20]++ // the store holds the message's bytes: Encoded reads them
	if bytes.Equal(n.copies.mem.Encoded(h, 200, false), enc) {
		t.Error("the copy was copied again")
	}
	for i := 0; i < 3; i++ {
		b := n.copies.recvBuffer()
		if len(b) < recvBufferSize || &b[:cap(b)][cap(b)-1] == &m[:cap(m)][cap(m)-1] {
			t.Fatalf("recvBuffer: %d bytes, or the kept one", len(b))
		}
	}
	bad := encodeCopy(nil, enc[:len(enc)-1])
	if err := n.keepCopy(3, bad[1:], bad); err == nil {
		t.Error("a truncated copy kept")
	}
}

// TestFrameCopy: a copy framed in place is the message encodeCopy makes;
// too many pins for the room fall back (nil).
func TestFrameCopy(t *testing.T) {
	enc := []byte("GTCK container")
	pins := []uint64{800, 400, 200}
	buf := append(make([]byte, copyRoom), enc...)
	m := frameCopy(buf, copyRoom, pins)
	if !bytes.Equal(m, encodeCopy(pins, enc)) {
		t.Fatalf("framed %q, want %q", m, encodeCopy(pins, enc))
	}
	if &m[len(m)-1] != &buf[len(buf)-1] {
		t.Error("not framed in place")
	}
	if frameCopy(buf, copyRoom, make([]uint64, 65)) != nil {
		t.Error("65 pins framed in the room of 64")
	}
}
