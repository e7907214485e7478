package run

import (
	"fmt"

	"github.com/gridtui/gridtui/engine"
)

// gatewayLines are the Run view's lines on the gateway links, at most w
// cells each: what each gateway sent to the other site's, the S2 ratio and
// the DATA bytes before and after it, then its messages, its queue now and at most, and the
// asynchronous updates it replaced (on a second line when one is too
// narrow). A link of a live run that is down says so (once the run is
// over, its gateways are stopped and every link is down).
func gatewayLines(gws []engine.GatewayReport, w int, live bool) []string {
	out := make([]string, 0, 2*len(gws))
	for _, g := range gws {
		state := ""
		if live && !g.Up {
			state = " DOWN"
		}
		head := fmt.Sprintf("%s → %s%s: S2 %.2f× (DATA %s → %s)", g.Name, g.Peer, state,
			g.CompressionRatio(), bytesText(g.RawData), bytesText(g.WireData))
		tail := fmt.Sprintf("%s msg, queue %s (max %s)", countText(g.DataMessages+g.CtrlMessages),
			bytesText(uint64(max(g.Queued, 0))), bytesText(uint64(max(g.MaxQueued, 0))))
		if g.Skipped > 0 {
			tail += ", " + countText(g.Skipped) + " skipped"
		}
		if widthOf(head)+2+widthOf(tail) <= w {
			out = append(out, head+", "+tail)
			continue
		}
		out = append(out, head, "  "+tail)
	}
	return out
}
