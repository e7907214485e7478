// Package rmnpbench measures RMNP against plain sockets: ping-pongs and streams of
// one message size between two endpoints of this process, over loopback TCP or a
// Unix socket, through an RMNP synchronous DATA link, over a bare net.Conn (the
// plain baseline) and over a net.Conn carrying RMNP's frame layout through rmnp's
// own socket I/O (the framed baseline, the floor the wire format sets). Compare
// alternates the three on fresh connections; repeated comparisons show the spread
// between connections. It backs `gridtui bench rmnp` and the Go benchmarks beside
// it; the figures are in BENCHMARKS.md and, in full, docs/bench/rmnp.md.
package rmnpbench
