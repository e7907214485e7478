package gateway

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"github.com/gridtui/gridtui/rmnp"
	"math"
	"net"
	"testing"
	"time"
)

// gatewayRoute builds two gateways (g1 for endpoint a's site, g2 for b's)
// and returns the address a dials to reach b through them.
func gatewayRoute(t *testing.T, b *rmnp.Endpoint, compress bool) (g1, g2 *Gateway, addr string) {
	return benchGatewayRoute(t, b, compress)
}

func benchGatewayRoute(t testing.TB, b *rmnp.Endpoint, compress bool) (g1, g2 *Gateway, addr string) {
	t.Helper()
	base := GatewayConfig{RunID: testRun, Secret: testSecret, Compress: compress} // default heartbeat: a loaded -race run can starve a link for 600 ms
	c2 := base
	c2.Self, c2.Name, c2.Listen = 200, "g2", []string{"tcp://127.0.0.1:0"}
	c2.Peers = []GatewayPeer{{ID: 100, Name: "g1", Addr: "tcp://127.0.0.1:1"}} // g1 dials (lower id)
	c2.Allow = b.Addrs()
	g2, err := StartGateway(context.Background(), c2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g2.Close() })
	c1 := base
	c1.Self, c1.Name, c1.Listen = 100, "g1", []string{"tcp://127.0.0.1:0"}
	c1.Peers = []GatewayPeer{{ID: 200, Name: "g2", Addr: g2.Addrs()[0]}}
	g1, err = StartGateway(context.Background(), c1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g1.Close() })
	return g1, g2, rmnp.GatewayAddr(g1.Addrs()[0], "g2", b.Addrs()[0])
}

// viaGateways returns endpoints 1 and 2 linked through two gateways.
func viaGateways(t *testing.T, opts rmnp.LinkOptions, compress bool) (a, b *rmnp.Endpoint, g1, g2 *Gateway) {
	t.Helper()
	a = newEndpoint(t, testConfig(t, 1, "tcp"))
	b = newEndpoint(t, testConfig(t, 2, "tcp"))
	g1, g2, addr := gatewayRoute(t, b, compress)
	ctx := testCtx(t)
	if err := a.Connect(ctx, 2, addr, opts); err != nil {
		t.Fatalf("connect through gateways: %v", err)
	}
	if err := b.WaitPeer(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return a, b, g1, g2
}

// halo is a compressible DATA payload of n float64s, stamped with i.
func halo(i, n int) []byte {
	b := make([]byte, 8*n)
	for k := range n {
		binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(float64(i)+float64(k%7)/8))
	}
	return b
}

func TestGatewaySyncInOrder(t *testing.T) {
	checkGoroutines(t)
	a, b, g1, _ := viaGateways(t, rmnp.LinkOptions{Mode: rmnp.Sync, Network: "ethernet"}, true)
	ctx := testCtx(t)
	sizes := []int{0, 1, 100, 5000, 40000} // float64s: up to 320 KB, several chunks
	go func() {
		for i := range 60 {
			_ = a.Send(ctx, 2, halo(i, sizes[i%len(sizes)]), rmnp.DATA)
			if i%3 == 0 {
				_ = a.Send(ctx, 2, msgOf(i), rmnp.CTRL)
			}
		}
	}()
	buf := make([]byte, 8*40000)
	for i := range 60 {
		n, err := b.Receive(ctx, 1, buf, rmnp.DATA)
		if err != nil {
			t.Fatalf("data %d: %v", i, err)
		}
		if want := halo(i, sizes[i%len(sizes)]); !bytes.Equal(buf[:n], want) {
			t.Fatalf("data %d: got %d bytes, want %d (or content differs)", i, n, len(want))
		}
		if i%3 == 0 {
			n, err := b.Receive(ctx, 1, buf, rmnp.CTRL)
			if err != nil || !bytes.Equal(buf[:n], msgOf(i)) {
				t.Fatalf("ctrl %d: %q %v", i, buf[:n], err)
			}
		}
	}
	// and back
	if err := b.Send(ctx, 1, []byte("reply"), rmnp.CTRL); err != nil {
		t.Fatal(err)
	}
	if n, err := a.Receive(ctx, 2, buf, rmnp.CTRL); err != nil || string(buf[:n]) != "reply" {
		t.Fatalf("reply: %q %v", buf[:n], err)
	}
	st := g1.Stats()
	if len(st.Links) != 1 || st.Links[0].DataMessages != 60 || st.Links[0].CompressionRatio() < 2 {
		t.Fatalf("g1 stats: %+v", st)
	}
}

func TestGatewayAsyncLatestValue(t *testing.T) {
	checkGoroutines(t)
	a, b, g1, g2 := viaGateways(t, rmnp.LinkOptions{Mode: rmnp.Async, Network: "ethernet"}, false)
	ctx := testCtx(t)
	const sends = 400
	for i := range sends {
		if err := a.Send(ctx, 2, halo(i, 20000), rmnp.DATA); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send(ctx, 2, []byte("after"), rmnp.CTRL); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8*20000)
	n, err := b.Receive(ctx, 1, buf, rmnp.CTRL)
	if err != nil || string(buf[:n]) != "after" {
		t.Fatalf("ctrl: %q %v", buf[:n], err)
	}
	// The last update is the one delivered last; no frame was refused (a
	// sequence gap would have closed the link).
	var last int
	for {
		n, err := b.Receive(ctx, 1, buf, rmnp.DATA|rmnp.NoWait)
		if errors.Is(err, rmnp.ErrNoMessage) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = int(math.Float64frombits(binary.LittleEndian.Uint64(buf[:n])))
	}
	if last != sends-1 {
		t.Fatalf("last update received %d, want %d", last, sends-1)
	}
	got := b.Stats().Links[0].MessagesReceived
	skipped := g1.Stats().Links[0].Skipped + g2.Stats().Links[0].Skipped + a.Stats().Links[0].Skipped
	t.Logf("%d sent, %d received by b, %d skipped on the way", sends, got, skipped)
	if got+skipped < sends || !b.Stats().Links[0].Up {
		t.Fatalf("messages lost: %d received + %d skipped < %d", got, skipped, sends)
	}
}

func TestGatewayRefusesOtherDestinations(t *testing.T) {
	checkGoroutines(t)
	a := newEndpoint(t, testConfig(t, 1, "tcp"))
	b := newEndpoint(t, testConfig(t, 2, "tcp"))
	c := newEndpoint(t, testConfig(t, 3, "tcp"))
	g1, _, _ := gatewayRoute(t, b, true)
	ctx := testCtx(t)
	err := a.Connect(ctx, 3, rmnp.GatewayAddr(g1.Addrs()[0], "g2", c.Addrs()[0]), rmnp.LinkOptions{})
	if !errors.Is(err, rmnp.ErrUnreachableVia) {
		t.Fatalf("connect to a destination outside the run: %v, want ErrUnreachableVia", err)
	}
	err = a.Connect(ctx, 2, rmnp.GatewayAddr(g1.Addrs()[0], "nosuch", b.Addrs()[0]), rmnp.LinkOptions{})
	if !errors.Is(err, rmnp.ErrUnreachableVia) {
		t.Fatalf("connect via an unknown gateway: %v, want ErrUnreachableVia", err)
	}
}

func TestGatewayWrongSecret(t *testing.T) {
	checkGoroutines(t)
	b := newEndpoint(t, testConfig(t, 2, "tcp"))
	_, g2, _ := gatewayRoute(t, b, true)
	cfg := GatewayConfig{RunID: testRun, Secret: []byte("another-secret-of-16+"), Self: 100, Name: "g1",
		Listen: []string{"tcp://127.0.0.1:0"}, Peers: []GatewayPeer{{ID: 200, Name: "g2", Addr: g2.Addrs()[0]}}}
	bad, err := StartGateway(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	time.Sleep(300 * time.Millisecond)
	for _, l := range bad.Stats().Links {
		if l.Up {
			t.Fatalf("gateway with a wrong secret got a link: %+v", l)
		}
	}
}

func TestGatewayDeathDownsLinks(t *testing.T) {
	checkGoroutines(t)
	a, b, g1, _ := viaGateways(t, rmnp.LinkOptions{Mode: rmnp.Sync, Network: "ethernet"}, true)
	g1.Close()
	ctx := testCtx(t)
	buf := make([]byte, 64)
	if _, err := b.Receive(ctx, 1, buf, rmnp.CTRL); !errors.Is(err, rmnp.ErrPeerDown) && !errors.Is(err, rmnp.ErrPeerClosed) {
		t.Fatalf("b after the gateway died: %v", err)
	}
	if _, err := a.Receive(ctx, 2, buf, rmnp.CTRL); !errors.Is(err, rmnp.ErrPeerDown) && !errors.Is(err, rmnp.ErrPeerClosed) {
		t.Fatalf("a after the gateway died: %v", err)
	}
}

// TestGatewayCtrlFirst: with DATA queued on one channel, a CTRL of another
// channel is written next.
func TestGatewayCtrlFirst(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	g := &Gateway{cfg: GatewayConfig{Compress: true}}
	m := newMux(g, c1, GatewayPeer{Name: "g2"}, true)
	x, y := m.newChan(nil, true), m.newChan(nil, true)
	for range 3 {
		m.enqueue(x, &relayItem{op: opMsg, iflags: rmnp.WireDATA, body: make([]byte, 3*dataChunk)})
	}
	m.enqueue(y, &relayItem{op: opMsg, iflags: rmnp.WireCTRL, body: []byte("token")})
	ch, it := m.pick()
	if ch != y || it.iflags != rmnp.WireCTRL {
		t.Fatalf("picked channel %d op %d flags %x, want the CTRL of channel %d", ch.id, it.op, it.iflags, y.id)
	}
	// Async DATA: a newer update replaces a queued one that has not started.
	m.enqueue(y, &relayItem{op: opMsg, iflags: rmnp.WireDATA | rmnp.WireAsync, body: []byte("old")})
	m.enqueue(y, &relayItem{op: opMsg, iflags: rmnp.WireDATA | rmnp.WireAsync, body: []byte("new")})
	if n := len(y.out); n != 2 || string(y.out[1].body) != "new" || m.c.skipped.Load() != 1 {
		t.Fatalf("async slot: %d items, last %q, skipped %d", n, y.out[n-1].body, m.c.skipped.Load())
	}
}

// TestGatewayAllowMore: a destination refused at first (a worker started
// after the gateway was configured, e.g. by a recovery) is dialed once
// AllowMore names it.
func TestGatewayAllowMore(t *testing.T) {
	checkGoroutines(t)
	a := newEndpoint(t, testConfig(t, 1, "tcp"))
	b := newEndpoint(t, testConfig(t, 2, "tcp"))
	c := newEndpoint(t, testConfig(t, 3, "tcp"))
	g1, g2, _ := gatewayRoute(t, b, true)
	ctx := testCtx(t)
	via := rmnp.GatewayAddr(g1.Addrs()[0], "g2", c.Addrs()[0])
	if err := a.Connect(ctx, 3, via, rmnp.LinkOptions{}); !errors.Is(err, rmnp.ErrUnreachableVia) {
		t.Fatalf("connect before AllowMore: %v, want ErrUnreachableVia", err)
	}
	g2.AllowMore(c.Addrs())
	g2.AllowMore(c.Addrs()) // twice: kept once
	if err := a.Connect(ctx, 3, via, rmnp.LinkOptions{}); err != nil {
		t.Fatalf("connect after AllowMore: %v", err)
	}
	if err := c.WaitPeer(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(g2.cfg.Allow); n != len(b.Addrs())+len(c.Addrs()) {
		t.Errorf("g2 allows %d destinations, want %d (no duplicate)", n, len(b.Addrs())+len(c.Addrs()))
	}
}
