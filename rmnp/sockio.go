package rmnp

import "net"

// connIO is a link's I/O through the net.Conn itself: where the connection has
// no file descriptor (net.Pipe) or the platform has no sockIO of its own. Writes
// go through net.Buffers (one writev where the connection supports it).
type connIO struct {
	c    net.Conn
	bufs net.Buffers
	arr  [3][]byte
}

// Read reads into p.
func (s *connIO) Read(p []byte) (int, error) { return s.c.Read(p) }

// write writes a, b and c completely.
func (s *connIO) write(a, b, c []byte) error {
	s.arr = [3][]byte{a, b, c}
	s.bufs = s.arr[:]
	_, err := s.bufs.WriteTo(s.c)
	s.arr = [3][]byte{}
	return err
}
