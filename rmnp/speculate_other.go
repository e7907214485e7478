//go:build !linux

package rmnp

import "net"

// speculation is a no-op where readv is not wired: Receives take the normal path.
type speculation struct{}

func (s *speculation) init(net.Conn) {}

func (s *speculation) ok() bool { return false }

func (s *speculation) readv(a, b, c []byte) (int, error) { return 0, nil }
