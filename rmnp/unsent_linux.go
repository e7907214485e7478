package rmnp

import (
	"net"

	"golang.org/x/sys/unix"
)

// AsyncUnsentLimit bounds the bytes an asynchronous TCP link leaves unsent in
// the kernel (TCP_NOTSENT_LOWAT). Without it the send buffer grows to
// megabytes on a slow link: every DATA frame is handed to the kernel at once,
// the AIAC skip (a newer update replaces a queued one) never happens, and the
// peer iterates with halos that waited seconds in the buffer. On the
// multi-host harness with a slow inter-cluster link, asynchronous runs were
// slower than synchronous ones without the limit and much faster with it
// (docs/bench/study.md).
const AsyncUnsentLimit = 16 << 10

// LimitUnsent sets TCP_NOTSENT_LOWAT on a TCP connection; other connections
// (Unix sockets) are left alone, as is any error (the link works without it).
func LimitUnsent(c net.Conn, bytes int) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, bytes)
	})
}
