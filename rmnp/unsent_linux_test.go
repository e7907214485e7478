package rmnp

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAsyncLinkLimitsUnsent checks that both ends of an asynchronous TCP link
// bound their unsent bytes (TCP_NOTSENT_LOWAT) and synchronous links keep the
// kernel's default.
func TestAsyncLinkLimitsUnsent(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mode  Mode
		limit bool
	}{{"async", Async, true}, {"sync", Sync, false}} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pair(t, "tcp", LinkOptions{Mode: tt.mode, Network: "ethernet"})
			for _, e := range []*Endpoint{a, b} {
				e.mu.Lock()
				links := append([]*link(nil), e.links...)
				e.mu.Unlock()
				if len(links) != 1 {
					t.Fatalf("endpoint %d has %d links, want 1", e.cfg.Self, len(links))
				}
				got := notSentLowat(t, links[0].conn)
				if (got == AsyncUnsentLimit) != tt.limit {
					t.Errorf("endpoint %d: TCP_NOTSENT_LOWAT = %d, want limited=%v (%d)", e.cfg.Self, got, tt.limit, AsyncUnsentLimit)
				}
			}
		})
	}
}

func notSentLowat(t *testing.T, c net.Conn) int {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := raw.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT) }); err != nil || gerr != nil {
		t.Fatal(err, gerr)
	}
	return v
}
