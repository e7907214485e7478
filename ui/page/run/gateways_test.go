package run

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	rmnpgw "github.com/gridtui/gridtui/rmnp/gateway"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// TestRunViewGateways: the Run view shows each gateway link's DATA before
// and after S2, its ratio, messages and queue, on one line when it fits,
// on two in a narrow column.
func TestRunViewGateways(t *testing.T) {
	snap := uitest.FakeRun(4, 3, -1)[1]
	snap.Gateways = []engine.GatewayReport{{Name: "gw-west", Site: "west", Host: "alpha-1", GatewayLinkStats: rmnpgw.GatewayLinkStats{
		Peer: "gw-east", Up: true, DataMessages: 1200, CtrlMessages: 30, RawData: 3 << 20, WireData: 2 << 20, Queued: 4096, MaxQueued: 64 << 10, Skipped: 7}}}
	for _, w := range []int{80, 160} {
		v := New(uitest.Common(w, 40))
		v.Start(jobs.Spec{Name: "poisson-n48-sync", Scheme: jobs.Synchronous})
		v.ApplySnapshot(snap)
		s := v.View()
		for _, want := range []string{"gw-west → gw-east: S2 1.50× (DATA 3.0 MiB → 2.0 MiB)", "1230 msg, queue 4.0 KiB (max 64.0 KiB), 7 skipped"} {
			if !strings.Contains(s, want) {
				t.Errorf("width %d: the Run view lacks %q:\n%s", w, want, s)
			}
		}
	}
	if got := gatewayLines(snap.Gateways, 40, true); len(got) != 2 {
		t.Errorf("at 40 cells: %q, want the link on two lines", got)
	}
}

// TestRunViewGatewaysFinal: once the run has ended, the Run view shows the
// gateway links' counters of its report, which the gateways printed as
// they stopped, not the last snapshot's (zero for a run shorter than their
// period).
func TestRunViewGatewaysFinal(t *testing.T) {
	v := New(uitest.Common(160, 40))
	v.Start(jobs.Spec{Name: "poisson-n24-sync", Scheme: jobs.Synchronous})
	snap := uitest.FakeRun(4, 3, -1)[2]
	snap.Gateways = []engine.GatewayReport{{Name: "gw-west", GatewayLinkStats: rmnpgw.GatewayLinkStats{Peer: "gw-east", Up: true}}}
	v.ApplySnapshot(snap)
	v.ApplyGateways([]engine.GatewayReport{{Name: "gw-west", GatewayLinkStats: rmnpgw.GatewayLinkStats{
		Peer: "gw-east", DataMessages: 266, RawData: 2 << 20, WireData: 1 << 20}}})
	v.Finish("outcome:   ok", nil)
	if s := v.View(); !strings.Contains(s, "gw-west → gw-east: S2 2.00× (DATA 2.0 MiB → 1.0 MiB)") {
		t.Errorf("the finished Run view does not show the report's gateway counters:\n%s", s)
	}
}
