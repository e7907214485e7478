package rmnp

import (
	"io"
	"net"
)

// framedConn sends and receives messages framed as a link frames them (header,
// pad from padMin up, payload) on a plain connection, with the system calls a link
// makes: header and payload in one write (copied together up to smallWrite, one
// writev beyond) and read with one readv, through the same sockIO. It has none of a
// link's bookkeeping, so it is the floor the wire format and the I/O path set
// (NewFramedPingPong).
type framedConn struct {
	c    net.Conn
	head [frameAlign]byte // header, then the pad (zero)
	in   [frameAlign]byte
	wbuf []byte
	sock sockIO
}

func (f *framedConn) init(c net.Conn) {
	f.c = c
	f.wbuf = make([]byte, frameAlign+smallWrite)
	f.sock.init(c)
}

func (f *framedConn) write(buf []byte) error {
	h := (*header)(f.head[:headerSize])
	h.encode(typeMsg, uint8(DATA), uint32(len(buf)), uint32(len(buf)), 1)
	head := f.head[:headerSize+h.pad()]
	if len(buf) <= smallWrite {
		off := copy(f.wbuf, head)
		n := copy(f.wbuf[off:], buf)
		return f.sock.write(f.wbuf[:off+n], nil, nil)
	}
	return f.sock.write(head, buf, nil)
}

// read reads one message of len(buf) bytes (the ping-pong knows the size).
func (f *framedConn) read(buf []byte) error {
	head := f.in[:headerSize+padFor(protoVersion, typeMsg, uint32(len(buf)))]
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

// echoFramed is the framed baseline's far end.
func (p *PingPong) echoFramed() {
	var f framedConn
	f.init(p.cb)
	buf := make([]byte, p.size)
	for k := 1; ; k++ {
		err := f.read(buf)
		if r, ok := p.reply(buf, k); err == nil && ok {
			err = f.write(r)
		}
		if err != nil {
			p.echoErr <- err
			return
		}
	}
}
