//go:build !linux

package rmnp

import "net"

// AsyncUnsentLimit bounds the bytes an asynchronous TCP link leaves unsent in
// the kernel; only Linux applies it (TCP_NOTSENT_LOWAT), see unsent_linux.go.
const AsyncUnsentLimit = 16 << 10

// LimitUnsent does nothing here (see unsent_linux.go).
func LimitUnsent(net.Conn, int) {}
