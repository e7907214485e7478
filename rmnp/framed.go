package rmnp

import (
	"io"
	"net"

	"github.com/gridtui/gridtui/internal/rmnpframed"
)

// framedConn sends and receives messages framed as a link frames them (header,
// pad from padMin up, payload) on a plain connection, with the system calls a link
// makes: header and payload in one write (copied together up to smallWrite, one
// writev beyond) and read with one readv, through the same sockIO. It has none of a
// link's bookkeeping, so it is the floor the wire format and the I/O path set: the
// framed baseline of the benchmark harness, which reaches it through
// internal/rmnpframed.
type framedConn struct {
	c    net.Conn
	head [frameAlign]byte // header, then the pad (zero)
	in   [frameAlign]byte
	wbuf []byte
	sock sockIO
}

func init() {
	rmnpframed.New = func(c net.Conn) rmnpframed.Conn {
		f := &framedConn{}
		f.init(c)
		return f
	}
}

func (f *framedConn) init(c net.Conn) {
	f.c = c
	f.wbuf = make([]byte, frameAlign+SmallWrite)
	f.sock.init(c, 0)
}

// Write sends buf as one DATA frame.
func (f *framedConn) Write(buf []byte) error {
	h := (*Header)(f.head[:HeaderSize])
	h.Encode(TypeMsg, uint8(DATA), uint32(len(buf)), uint32(len(buf)), 1)
	head := f.head[:HeaderSize+h.Pad()]
	if len(buf) <= SmallWrite {
		off := copy(f.wbuf, head)
		n := copy(f.wbuf[off:], buf)
		return f.sock.write(f.wbuf[:off+n], nil, nil)
	}
	return f.sock.write(head, buf, nil)
}

// Read reads one message of len(buf) bytes (the caller knows the size).
func (f *framedConn) Read(buf []byte) error {
	head := f.in[:HeaderSize+padFor(ProtoVersion, TypeMsg, uint32(len(buf)))]
	n := 0
	if f.sock.ok() {
		var err error
		if n, err = f.sock.readv(head, buf, nil); err != nil {
			return err
		}
	}
	if n < len(head) {
		if _, err := io.ReadFull(&f.sock, head[n:]); err != nil {
			return err
		}
		n = len(head)
	}
	_, err := io.ReadFull(&f.sock, buf[n-len(head):])
	return err
}
