//go:build !linux

package exec

import (
	"net"
	"syscall"
)

// rawIO is the program's socket itself off Linux (where programs do not run).
type rawIO struct{ *net.UnixConn }

func newRawIO(conn *net.UnixConn, _ syscall.RawConn) *rawIO { return &rawIO{conn} }
