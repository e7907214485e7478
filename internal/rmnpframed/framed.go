// Package rmnpframed hands the benchmark harness (internal/rmnpbench) a way to
// move messages framed exactly as an RMNP link frames them (header, pad) through
// rmnp's own socket I/O, without any of the protocol: the floor the wire format
// and the I/O path set. rmnp fills New at start-up; nothing else should use it,
// and it is internal so that rmnp's public API carries no benchmark code.
package rmnpframed

import "net"

// Conn sends and receives framed messages on one connection. It is not safe for
// concurrent use: one goroutine reads, one writes.
type Conn interface {
	// Write sends buf as one DATA message frame.
	Write(buf []byte) error
	// Read reads one message frame whose payload is exactly len(buf) bytes.
	Read(buf []byte) error
}

// New wraps a connection; set by package rmnp when it is initialised (nil if
// rmnp is not linked in).
var New func(c net.Conn) Conn
