package rmnp

import (
	"slices"
	"time"
)

// Counters are the traffic figures of a link or a network.
type Counters struct {
	// MessagesSent and MessagesReceived count MSG frames (CTRL and DATA).
	MessagesSent, MessagesReceived uint64
	// BytesSent and BytesReceived count bytes on the wire, headers included.
	BytesSent, BytesReceived uint64
	// RawDataSent and RawDataReceived count DATA payload bytes before compression.
	RawDataSent, RawDataReceived uint64
	// WireDataSent and WireDataReceived count DATA payload bytes as written (after
	// compression).
	WireDataSent, WireDataReceived uint64
	// Skipped counts asynchronous sends replaced before being written (AIAC skip).
	Skipped uint64
	// Replaced counts asynchronous updates replaced unread at the receiver.
	Replaced uint64
	// BlockedReceive is the time Receive calls spent blocked waiting for messages.
	BlockedReceive time.Duration
}

// CompressionRatio returns raw DATA bytes sent per wire byte (1 without compression,
// 0 if nothing was sent).
func (c Counters) CompressionRatio() float64 {
	if c.WireDataSent == 0 {
		return 0
	}
	return float64(c.RawDataSent) / float64(c.WireDataSent)
}

func (c *Counters) add(o Counters) {
	c.MessagesSent += o.MessagesSent
	c.MessagesReceived += o.MessagesReceived
	c.BytesSent += o.BytesSent
	c.BytesReceived += o.BytesReceived
	c.RawDataSent += o.RawDataSent
	c.RawDataReceived += o.RawDataReceived
	c.WireDataSent += o.WireDataSent
	c.WireDataReceived += o.WireDataReceived
	c.Skipped += o.Skipped
	c.Replaced += o.Replaced
	c.BlockedReceive += o.BlockedReceive
}

// LinkStats describes one link and its counters.
type LinkStats struct {
	Peer     PeerID
	Network  string
	Mode     Mode
	Compress bool
	Dialed   bool // this endpoint dialed the link
	Up       bool
	Local    string
	Remote   string
	// Congestion is the TCP congestion control the link uses (see
	// Config.CongestionControl); empty for a Unix socket.
	Congestion string
	Counters
}

// NetworkStats sums the counters of every link (up or down) on one network label.
type NetworkStats struct {
	Network string
	Links   int
	Counters
}

// Stats is a snapshot of every link's counters and their sums per network.
type Stats struct {
	Links    []LinkStats
	Networks []NetworkStats
}

func (l *link) counters() Counters {
	c := &l.c
	wireSent, wireRecv := c.zSent.Load(), c.zRecv.Load()
	if !l.info.compress {
		// Without compression the wire payload is the raw payload: the hot path
		// counts it once.
		wireSent, wireRecv = c.rawSent.Load(), c.rawRecv.Load()
	}
	return Counters{
		MessagesSent: c.msgsSent.Load(), MessagesReceived: c.msgsRecv.Load(),
		BytesSent: c.bytesSent.Load(), BytesReceived: c.bytesRecv.Load(),
		RawDataSent: c.rawSent.Load(), RawDataReceived: c.rawRecv.Load(),
		WireDataSent: wireSent, WireDataReceived: wireRecv,
		Skipped: c.skipped.Load(), Replaced: c.replaced.Load(),
		BlockedReceive: ticksDuration(c.blocked.Load()),
	}
}

// Stats returns the counters of every link this endpoint has had, and their sums per
// network label. Counters are read with atomics: Stats never slows the hot path.
func (e *Endpoint) Stats() Stats {
	e.mu.Lock()
	links := slices.Clone(e.links)
	e.mu.Unlock()
	var s Stats
	byNet := map[string]int{}
	for _, l := range links {
		ls := LinkStats{Peer: l.p.id, Network: l.info.Label, Mode: l.info.mode,
			Compress: l.info.compress, Dialed: l.dialed, Up: !l.isDown(),
			Local: l.local, Remote: l.remote, Congestion: l.info.congestion, Counters: l.counters()}
		s.Links = append(s.Links, ls)
		i, ok := byNet[ls.Network]
		if !ok {
			i = len(s.Networks)
			byNet[ls.Network] = i
			s.Networks = append(s.Networks, NetworkStats{Network: ls.Network})
		}
		s.Networks[i].Links++
		s.Networks[i].add(ls.Counters)
	}
	return s
}
