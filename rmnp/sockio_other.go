//go:build !linux

package rmnp

import (
	"net"
	"time"
)

// sockIO is the net.Conn's own I/O where raw vectored I/O is not wired: no
// speculative reads.
type sockIO struct{ connIO }

func (s *sockIO) init(c net.Conn, _ time.Duration) { s.c = c }

func (s *sockIO) ok() bool { return false }

func (s *sockIO) readv(a, b, c []byte) (int, error) { return 0, nil }
