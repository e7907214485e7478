package rmnp

import (
	"io"
	"net"
)

// framedConn sends and receives messages behind a 16-byte RMNP frame header on a
// plain connection, with the system calls a link makes: header and payload in one
// write (copied together up to smallWrite, one writev beyond) and read with one
// readv where Linux allows it. It has none of a link's bookkeeping, so it is the
// floor the wire format sets (NewFramedPingPong).
type framedConn struct {
	c    net.Conn
	out  header
	in   header
	wbuf []byte
	iov  [2][]byte
	bufs net.Buffers
	sp   speculation
}

func (f *framedConn) init(c net.Conn) {
	f.c = c
	f.wbuf = make([]byte, headerSize+smallWrite)
	f.sp.init(c)
}

func (f *framedConn) write(buf []byte) error {
	f.out.encode(typeMsg, uint8(DATA), uint32(len(buf)), uint32(len(buf)), 1)
	if len(buf) <= smallWrite {
		copy(f.wbuf, f.out[:])
		n := copy(f.wbuf[headerSize:], buf)
		_, err := f.c.Write(f.wbuf[:headerSize+n])
		return err
	}
	f.iov = [2][]byte{f.out[:], buf}
	f.bufs = f.iov[:]
	_, err := f.bufs.WriteTo(f.c)
	f.iov = [2][]byte{}
	return err
}

// read reads one message of len(buf) bytes (the ping-pong knows the size).
func (f *framedConn) read(buf []byte) error {
	n := 0
	if f.sp.ok() {
		var err error
		if n, err = f.sp.readv(f.in[:], buf, nil); err != nil {
			return err
		}
	}
	if n < headerSize {
		if _, err := io.ReadFull(f.c, f.in[n:]); err != nil {
			return err
		}
		n = headerSize
	}
	_, err := io.ReadFull(f.c, buf[n-headerSize:])
	return err
}

// echoFramed is the framed baseline's far end.
func (p *PingPong) echoFramed() {
	var f framedConn
	f.init(p.cb)
	buf := make([]byte, p.size)
	for {
		err := f.read(buf)
		if err == nil {
			err = f.write(buf)
		}
		if err != nil {
			p.echoErr <- err
			return
		}
	}
}
