package gateway

import (
	"context"
	"github.com/gridtui/gridtui/rmnp"
	"testing"
)

// BenchmarkGatewayExchange measures a synchronous halo exchange (a DATA
// each way per iteration, as a chain of two nodes does) over a direct
// link and through two gateways on loopback: the gateways' own cost, with
// and without S2, when the network is not the bottleneck.
func BenchmarkGatewayExchange(b *testing.B) {
	for _, c := range []struct {
		name     string
		gateways bool
		compress bool
	}{{"direct", false, false}, {"gateways", true, false}, {"gateways-s2", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			a := newEndpoint(b, testConfig(b, 1, "tcp"))
			e := newEndpoint(b, testConfig(b, 2, "tcp"))
			addr := e.Addrs()[0]
			if c.gateways {
				_, _, addr = benchGatewayRoute(b, e, c.compress)
			}
			ctx := context.Background()
			if err := a.Connect(ctx, 2, addr, rmnp.LinkOptions{Mode: rmnp.Sync, Network: "ethernet"}); err != nil {
				b.Fatal(err)
			}
			if err := e.WaitPeer(ctx, 1); err != nil {
				b.Fatal(err)
			}
			msg := halo(1, 8<<10) // 64 KiB
			buf := make([]byte, len(msg))
			done := make(chan error, 1)
			go func() {
				for range b.N {
					if _, err := e.Receive(ctx, 1, buf, rmnp.DATA); err != nil {
						done <- err
						return
					}
					if err := e.Send(ctx, 1, msg, rmnp.DATA); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			b.SetBytes(int64(2 * len(msg)))
			b.ResetTimer()
			rb := make([]byte, len(msg))
			for range b.N {
				if err := a.Send(ctx, 2, msg, rmnp.DATA); err != nil {
					b.Fatal(err)
				}
				if _, err := a.Receive(ctx, 2, rb, rmnp.DATA); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
