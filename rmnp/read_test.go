package rmnp

import (
	"context"
	"errors"
	"net"
	"testing"
)

// TestInterruptedFlags checks how a read that timed out reads the read side's
// flags: a cancellation or stop aimed at the self-read in progress ends it (at a
// frame boundary) or, mid-frame, fails it or lets it finish; one aimed at an
// earlier self-read (it ended before the flag was seen) is stale and only retried.
func TestInterruptedFlags(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	l := &link{conn: c1, p: &peer{id: 7}, e: &Endpoint{}}
	tests := []struct {
		name          string
		cancel, stop  bool
		stale         bool
		boundary      bool
		again         bool
		wantCancelled bool // errCancelled
		wantCanceled  bool // wraps context.Canceled (mid-frame)
	}{
		{name: "cancel at boundary", cancel: true, boundary: true, wantCancelled: true},
		{name: "cancel mid-frame", cancel: true, wantCanceled: true},
		{name: "stop at boundary", stop: true, boundary: true, wantCancelled: true},
		{name: "stop mid-frame", stop: true, again: true},
		{name: "stop and cancel mid-frame", stop: true, cancel: true, again: true},
		{name: "stale cancel", cancel: true, stale: true, boundary: true, again: true},
		{name: "stale stop", stop: true, stale: true, again: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := &l.rd
			rd.selfSeq.Store(5) // a self-read in progress
			rd.mu.Lock()
			if tc.cancel {
				l.flag(true)
			}
			if tc.stop {
				l.flag(false)
			}
			rd.mu.Unlock()
			if !rd.flagged.Load() || rd.flagSeq != 5 {
				t.Fatalf("flag: flagged %v seq %d", rd.flagged.Load(), rd.flagSeq)
			}
			if tc.stale {
				rd.selfSeq.Store(7) // that read ended, another began
			}
			again, err := l.interrupted(tc.boundary)
			switch {
			case again != tc.again:
				t.Fatalf("again %v, want %v (err %v)", again, tc.again, err)
			case (err == errCancelled) != tc.wantCancelled:
				t.Fatalf("err %v, want errCancelled %v", err, tc.wantCancelled)
			case errors.Is(err, context.Canceled) != tc.wantCanceled:
				t.Fatalf("err %v, want context.Canceled %v", err, tc.wantCanceled)
			case rd.cancel || rd.stop || rd.flagged.Load():
				t.Fatal("flags left set")
			}
		})
	}
	// No self-read in progress: nothing is flagged.
	l.rd.selfSeq.Store(8)
	l.rd.mu.Lock()
	l.flag(true)
	l.rd.mu.Unlock()
	if l.rd.cancel || l.rd.flagged.Load() {
		t.Fatal("flagged without a self-read")
	}
}
