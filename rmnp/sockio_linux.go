package rmnp

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sockIO reads and writes a link's socket with system calls made directly on its
// file descriptor, through the runtime's poller (syscall.RawConn: deadlines, Close
// and the wait for readiness work as for net.Conn). Two things set it apart from
// net.Conn's Read and Write:
//
//   - readv and writev: a frame's header, pad and payload in one system call,
//     the payload going straight to or from the caller's buffer;
//   - calls moving at most rawMax bytes are made with syscall.RawSyscall, without
//     the runtime's entersyscall/exitsyscall bookkeeping. The socket is
//     non-blocking, so such a call only copies what is there: it cannot block,
//     and a copy of rawMax bytes stays well under the 20 µs after which the
//     runtime's sysmon would hand the P to another thread anyway. On a
//     small-message ping-pong that bookkeeping shows in perf
//     (docs/bench/rmnp.md), three times per message (the write, the read
//     that finds nothing, the read that gets the frame).
//
// The read state belongs to whoever holds the link's read side, the write state
// to whoever writes (busy); each is set up once so that a call allocates nothing.
type sockIO struct {
	conn connIO // used where the connection has no file descriptor (net.Pipe)
	raw  syscall.RawConn
	rd   sysCall
	wr   sysCall
}

// rawMax is the largest transfer made with RawSyscall (a 64 KiB frame fits with
// room to spare); larger ones go through syscall.Syscall.
const rawMax = 128 << 10

// sysCall is one readv or writev in progress: its vector, and the outcome the
// poller's callback leaves.
type sysCall struct {
	trap  uintptr // SYS_READV or SYS_WRITEV
	one   uintptr // SYS_READ or SYS_WRITE, for a single buffer
	iov   [3]syscall.Iovec
	cnt   int
	total int
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
	poll  int64 // reads: Config.ReadPoll in ns (0: none)
}

func (s *sockIO) init(c net.Conn, poll time.Duration) {
	s.conn.c = c
	s.rd.poll = int64(poll)
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	s.raw = raw
	s.rd.trap, s.rd.one, s.rd.fn = syscall.SYS_READV, syscall.SYS_READ, s.rd.call
	s.wr.trap, s.wr.one, s.wr.fn = syscall.SYS_WRITEV, syscall.SYS_WRITE, s.wr.call
}

// ok reports whether the connection has a file descriptor to work on.
func (s *sockIO) ok() bool { return s.raw != nil }

// call is the poller's callback: one read or write (a single buffer: the kernel's
// readv/writev pay per call for copying and checking the vector), or one
// readv or writev; false asks the poller to wait until the socket is ready and call
// again.
func (c *sysCall) call(fd uintptr) bool {
	trap, a1, a2 := c.trap, uintptr(unsafe.Pointer(&c.iov[0])), uintptr(c.cnt)
	if c.cnt == 1 {
		trap, a1, a2 = c.one, uintptr(unsafe.Pointer(c.iov[0].Base)), uintptr(c.iov[0].Len)
	}
	var r uintptr
	var e syscall.Errno
	if c.total <= rawMax {
		r, _, e = syscall.RawSyscall(trap, fd, a1, a2)
	} else {
		r, _, e = syscall.Syscall(trap, fd, a1, a2)
	}
	if (e == syscall.EAGAIN || e == syscall.EINTR) && c.poll > 0 && pollIn(fd, c.poll) {
		r, _, e = syscall.Syscall(trap, fd, a1, a2)
	}
	if e == syscall.EAGAIN || e == syscall.EINTR {
		return false
	}
	c.n, c.errno = int(r), e
	return true
}

// pollIn waits up to ns nanoseconds in ppoll(2) for fd to be readable (or
// to fail), blocking the calling thread, and reports whether it is.
func pollIn(fd uintptr, ns int64) bool {
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	ts := syscall.NsecToTimespec(ns)
	n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return e == 0 && n > 0
}

// set fills the vector with the non-empty buffers.
func (c *sysCall) set(bufs ...[]byte) {
	c.cnt, c.total, c.n, c.errno = 0, 0, 0, 0
	for _, p := range bufs {
		if len(p) > 0 {
			c.iov[c.cnt].Base = &p[0]
			c.iov[c.cnt].SetLen(len(p))
			c.cnt++
			c.total += len(p)
		}
	}
}

// clear drops the vector's references to the caller's buffers.
func (c *sysCall) clear() { c.iov = [3]syscall.Iovec{} }

// Read reads into p (io.Reader, for the frame reader).
func (s *sockIO) Read(p []byte) (int, error) {
	if s.raw == nil {
		return s.conn.Read(p)
	}
	return s.readv(p, nil, nil)
}

// readv reads into the three buffers in order with one system call (only when ok).
func (s *sockIO) readv(a, b, c []byte) (int, error) {
	rd := &s.rd
	rd.set(a, b, c)
	if rd.cnt == 0 {
		return 0, nil
	}
	err := s.raw.Read(rd.fn)
	rd.clear()
	switch {
	case err != nil:
		return 0, err
	case rd.errno != 0:
		return 0, os.NewSyscallError("readv", rd.errno)
	case rd.n == 0:
		return 0, io.EOF
	}
	return rd.n, nil
}

// write writes a, b and c completely, with one writev when the socket takes it
// all (the usual case).
func (s *sockIO) write(a, b, c []byte) error {
	if s.raw == nil {
		return s.conn.write(a, b, c)
	}
	wr := &s.wr
	wr.set(a, b, c)
	err := s.writeAll()
	wr.clear()
	return err
}

// writeAll writes the vector of s.wr, continuing after short writes.
func (s *sockIO) writeAll() error {
	wr := &s.wr
	for {
		if err := s.raw.Write(wr.fn); err != nil {
			return err
		}
		if wr.errno != 0 {
			return os.NewSyscallError("writev", wr.errno)
		}
		if wr.n == wr.total {
			return nil
		}
		wr.advance(wr.n)
	}
}

// advance drops the first n bytes of the vector (after a short write).
func (c *sysCall) advance(n int) {
	c.total -= n
	i := 0
	for i < c.cnt && n >= int(c.iov[i].Len) {
		n -= int(c.iov[i].Len)
		i++
	}
	copy(c.iov[:], c.iov[i:c.cnt])
	c.cnt -= i
	if c.cnt > 0 && n > 0 {
		c.iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(c.iov[0].Base), n))
		c.iov[0].SetLen(int(c.iov[0].Len) - n)
	}
}
