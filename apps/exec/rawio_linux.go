package exec

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIO reads and writes the worker's end of a program's socket with
// read(2) and write(2) made as raw system calls (syscall.RawSyscall)
// through the runtime's poller (syscall.RawConn: deadlines, Close and the
// wait for readiness work as for net.Conn). The socket is non-blocking,
// so such a call only copies what is there and cannot block; what it
// saves is the runtime's entersyscall, which wakes the runtime's sysmon
// thread whenever the worker was idle — and in a program's turn the
// worker is idle by design: perf showed that wake-up (a futex and a
// context switch of its own) on every call of every iteration
// (docs/bench/speed.md). rmnp does the same for its links (sockio_linux.go).
type rawIO struct {
	conn *net.UnixConn
	raw  syscall.RawConn
	rd   rawCall
	wr   rawCall
}

// rawMax is the largest transfer made with RawSyscall (a call's header and
// arguments, a reply); larger ones (a program's result) go through conn.
const rawMax = 64 << 10

// rawCall is one read or write in progress and the outcome the poller's
// callback leaves; fn is set once, so that a call allocates nothing.
type rawCall struct {
	trap  uintptr // SYS_READ or SYS_WRITE
	p     []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

func newRawIO(conn *net.UnixConn, raw syscall.RawConn) *rawIO {
	s := &rawIO{conn: conn, raw: raw}
	s.rd.trap, s.rd.fn = syscall.SYS_READ, s.rd.call
	s.wr.trap, s.wr.fn = syscall.SYS_WRITE, s.wr.call
	return s
}

// call is the poller's callback: false asks it to wait until the socket is
// ready and call again.
func (c *rawCall) call(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(c.trap, fd, uintptr(unsafe.Pointer(&c.p[0])), uintptr(len(c.p)))
	if e == syscall.EAGAIN || e == syscall.EINTR {
		return false
	}
	c.n, c.errno = int(r), e
	return true
}

// Read reads what the socket holds into p, waiting for something if it
// holds nothing (io.Reader, under the program's bufio.Reader).
func (s *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > rawMax {
		return s.conn.Read(p)
	}
	rd := &s.rd
	rd.p, rd.n, rd.errno = p, 0, 0
	err := s.raw.Read(rd.fn)
	rd.p = nil
	switch {
	case err != nil:
		return 0, err
	case rd.errno != 0:
		return 0, os.NewSyscallError("read", rd.errno)
	case rd.n == 0:
		return 0, io.EOF
	}
	return rd.n, nil
}

// Write writes all of p (io.Writer).
func (s *rawIO) Write(p []byte) (int, error) {
	if len(p) > rawMax {
		return s.conn.Write(p)
	}
	wr := &s.wr
	done := 0
	for done < len(p) {
		wr.p, wr.n, wr.errno = p[done:], 0, 0
		err := s.raw.Write(wr.fn)
		wr.p = nil
		switch {
		case err != nil:
			return done, err
		case wr.errno != 0:
			return done, os.NewSyscallError("write", wr.errno)
		}
		done += wr.n
	}
	return done, nil
}
