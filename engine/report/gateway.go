package report

import (
	"fmt"
	"strings"

	rmnpgw "github.com/gridtui/gridtui/rmnp/gateway"
)

// GatewayReport is one gateway's share of a run: its link to another
// site's gateway, as it counted what it sent.
type GatewayReport struct {
	Name string
	Site string
	Host string
	rmnpgw.GatewayLinkStats
}

// writeGateways prints each gateway link's traffic: messages, DATA bytes
// before and after S2, the most bytes it held queued, the asynchronous
// updates it replaced.
func (r *Report) writeGateways(b *strings.Builder) {
	for _, g := range r.Gateways {
		fmt.Fprintf(b, "gateway %s → %s: %d DATA + %d CTRL msgs, DATA %s raw, %s on the wire (S2 %.2f×), queue max %s, %d skipped\n",
			g.Name, g.Peer, g.DataMessages, g.CtrlMessages, formatBytes(g.RawData), formatBytes(g.WireData),
			g.CompressionRatio(), formatBytes(uint64(max(g.MaxQueued, 0))), g.Skipped)
	}
}
