package predict

import (
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// TestMeasureNetworksLoopback: on the local grid every network is the
// loopback. A synchronous exchange left over by the traced waits is
// measured and stands for every network; with none left over the networks
// take the loopback's figures, not the hardware defaults (which made a
// local 8-node prediction four times too slow once a run crossed
// clusters).
func TestMeasureNetworksLoopback(t *testing.T) {
	rec := jobs.RunRecord{ID: "s", Outcome: jobs.OutcomeOK, Machine: jobs.Machine{Cores: 2},
		Job: jobs.RunConfig{Scheme: jobs.Synchronous, Cores: 2, Inventory: jobs.InventoryEmbedded}}
	for rank := range 2 {
		tr := &jobs.NodeTrace{Points: 100, Links: []jobs.LinkTrace{{Peer: 1 - rank, Network: "infiniband", Sent: 100, BytesSent: 1e5}}}
		for range 100 {
			tr.Sweeps.Add(100 * time.Microsecond)
		}
		rec.Nodes = append(rec.Nodes, jobs.NodeRecord{Rank: rank, Iterations: 100, ComputeSeconds: 0.01, WaitSeconds: 0.005, Trace: tr})
	}
	res := &jobs.Results{Records: []jobs.RunRecord{rec}}
	for _, tc := range []struct {
		name   string
		delay  float64 // the fitted exchange delay, seconds per iteration
		source string
		bw     float64
	}{
		// 150 µs per iteration: 100 µs of sweep, 50 µs of exchange (5 µs of
		// it infiniband's latency), 1000 bytes per link.
		{"measured", 0, "measured on another network (loopback)", 1000 / 45e-6},
		{"in the waits", 50e-6, "loopback: the exchanges are in the traced waits", 2e9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Model{Sources: []Source{{ID: "s", Scheme: jobs.Synchronous}}, LinkBytes: 1000, ExchangeDelay: DelayModel{Base: tc.delay}}
			pl := Platform{Networks: DefaultNetworks()}
			measureNetworks(res, m, &pl, true)
			for name, n := range pl.Networks {
				src := tc.source
				if name == "infiniband" && tc.delay == 0 {
					src = "measured"
				}
				if n.Source != src || !nearRel(n.Bandwidth, tc.bw) {
					t.Errorf("%s: %+v, want %s at %.4g B/s", name, n, src, tc.bw)
				}
			}
		})
	}
}

func nearRel(a, b float64) bool { return a > 0 && b > 0 && a/b > 0.999 && a/b < 1.001 }
