package rmnp

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// speculation holds what a readv on the link's socket needs, set up once so that a
// read allocates nothing.
type speculation struct {
	raw  syscall.RawConn
	iov  [3]syscall.Iovec
	cnt  int
	n    int
	errn syscall.Errno
	fn   func(fd uintptr) bool
}

func (s *speculation) init(c net.Conn) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	s.raw = raw
	s.fn = s.readvFd
}

func (s *speculation) ok() bool { return s.raw != nil }

func (s *speculation) readvFd(fd uintptr) bool {
	r, _, e := syscall.Syscall(syscall.SYS_READV, fd, uintptr(unsafe.Pointer(&s.iov[0])), uintptr(s.cnt))
	if e == syscall.EAGAIN || e == syscall.EINTR {
		return false // wait until readable (honours deadlines)
	}
	s.n, s.errn = int(r), e
	return true
}

// readv reads into the three buffers in order with one system call.
func (s *speculation) readv(a, b, c []byte) (int, error) {
	s.cnt = 0
	for _, p := range [][]byte{a, b, c} {
		if len(p) > 0 {
			s.iov[s.cnt].Base = &p[0]
			s.iov[s.cnt].SetLen(len(p))
			s.cnt++
		}
	}
	s.n, s.errn = 0, 0
	err := s.raw.Read(s.fn)
	s.iov = [3]syscall.Iovec{} // drop the references to the buffers
	switch {
	case err != nil:
		return 0, err
	case s.errn != 0:
		return 0, s.errn
	case s.n == 0:
		return 0, io.EOF
	}
	return s.n, nil
}
