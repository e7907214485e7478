package gateway

import "slices"

// GatewayStats is a snapshot of a gateway's links to the other sites'
// gateways.
type GatewayStats struct {
	Name  string
	Links []GatewayLinkStats
}

// GatewayLinkStats are one gateway link's counters, as this gateway sent
// them.
type GatewayLinkStats struct {
	// Peer names the other site's gateway.
	Peer     string
	Up       bool
	Channels int
	// CtrlMessages and DataMessages count the worker messages sent on the
	// link; Skipped counts asynchronous DATA replaced by a newer one before
	// it left (on either leg).
	CtrlMessages, DataMessages, Skipped uint64
	// RawData and WireData are the DATA bytes before and after S2
	// compression; Bytes is every byte sent, headers included.
	RawData, WireData, Bytes, BytesReceived uint64
	// Queued is the bytes waiting to be sent now, MaxQueued the most ever.
	Queued, MaxQueued int64
}

// CompressionRatio is RawData / WireData (1 when nothing was sent).
func (s GatewayLinkStats) CompressionRatio() float64 {
	if s.WireData == 0 {
		return 1
	}
	return float64(s.RawData) / float64(s.WireData)
}

// Stats returns the counters of the gateway's latest link to each peer,
// up or down (a link's counters outlive it, so the last word after the run
// still has them).
func (g *Gateway) Stats() GatewayStats {
	g.mu.Lock()
	muxes := make([]*gwMux, 0, len(g.last))
	for _, m := range g.last {
		muxes = append(muxes, m)
	}
	g.mu.Unlock()
	st := GatewayStats{Name: g.cfg.Name}
	for _, m := range muxes {
		m.mu.Lock()
		n, q := len(m.chans), m.queued
		m.mu.Unlock()
		c := &m.c
		st.Links = append(st.Links, GatewayLinkStats{Peer: m.peer.Name, Up: !m.isDown(), Channels: n,
			CtrlMessages: c.ctrlMsgs.Load(), DataMessages: c.dataMsgs.Load(), Skipped: c.skipped.Load(),
			RawData: c.rawOut.Load(), WireData: c.wireOut.Load(), Bytes: c.bytesOut.Load(), BytesReceived: c.bytesIn.Load(),
			Queued: int64(q), MaxQueued: c.maxQueued.Load()})
	}
	slices.SortFunc(st.Links, func(a, b GatewayLinkStats) int {
		if a.Peer < b.Peer {
			return -1
		}
		if a.Peer > b.Peer {
			return 1
		}
		return 0
	})
	return st
}
