//go:build !linux

package rmnp

import "net"

// sockIO falls back to the net.Conn where raw vectored I/O is not wired: no
// speculative reads, writes through net.Buffers.
type sockIO struct {
	c    net.Conn
	bufs net.Buffers
	arr  [3][]byte
}

func (s *sockIO) init(c net.Conn) { s.c = c }

func (s *sockIO) ok() bool { return false }

func (s *sockIO) Read(p []byte) (int, error) { return s.c.Read(p) }

func (s *sockIO) readv(a, b, c, d []byte) (int, error) { return 0, nil }

func (s *sockIO) write(a, b, c []byte) error {
	s.arr = [3][]byte{a, b, c}
	s.bufs = s.arr[:]
	_, err := s.bufs.WriteTo(s.c)
	s.arr = [3][]byte{}
	return err
}
