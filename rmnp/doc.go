// Package rmnp implements the Reconfigurable Multi-Network Protocol of GRIDHPC
// (Sec. V-A): authenticated connections between the workers of a run over several
// networks at once (TCP per NIC address, a Unix socket for same-host peers), and the
// paper's GRID_Send / GRID_Receive / GRID_Wait as Endpoint.Send, Receive and Wait
// with CTRL and DATA flags.
//
// The communication mode is chosen per link by the engine, not by the caller: on a
// Sync link DATA is reliable and in order and Receive blocks; on an Async link DATA
// is latest-value (a newer update replaces an unread or still-queued older one, the
// AIAC chapter's "skip"). CTRL is always reliable and in order and never overtaken
// by DATA. Messages that arrive before their Receive are buffered (PACX-MPI).
//
// Each link has one reader goroutine and one sender goroutine; a Receive that has to
// wait on a peer's only link reads that link itself (and, for a large message like
// the previous one, reads it with one readv straight into the caller's buffer), so
// the hot path neither allocates nor switches goroutines. Links read and write
// their sockets through sockIO: read/write or readv/writev on the file descriptor,
// through the runtime's poller, without the runtime's system-call bookkeeping for
// transfers up to 128 KiB. TCP links on a path of sub-millisecond round trip leave a
// pacing congestion control such as BBR, whose bandwidth estimate can hold a
// connection's large messages at half speed (Config.CongestionControl). An endpoint
// whose Receives come from a goroutine locked to its thread (a callback from C: apps/exec's
// in-process programs) can have its reads wait in a poll(2) of that thread before the
// runtime's poller (Config.ReadPoll), so that the bytes wake the thread that reads them.
// DeriveKey gives another set of endpoints of the same run a run id and secret of their
// own. Counters per link and per network are atomics (Stats).
//
// A Gateway (the package rmnp/gateway) relays the links between two sites whose nodes cannot reach each other
// (PACX-MPI): a worker dials its site's gateway with a gw:// address (GatewayAddr),
// and the two sites' gateways carry every such link on one authenticated gateway
// link, DATA compressed with S2, CTRL never held behind another link's DATA, and
// an asynchronous link's updates replaced rather than queued (spec.md §8).
//
// The wire format and the handshake are specified in spec.md (version 2: large
// payloads start 64 bytes after their frame, so the kernel copies them aligned;
// the handshake agrees on the highest version both ends speak, down to 1).
package rmnp
