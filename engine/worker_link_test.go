package engine

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// withholdProxy stands in front of a worker's fast data address. It passes
// the rmnp handshake through until the dialer's second message (its auth),
// then withholds everything the worker sends back: the worker completes
// its side of the handshake and takes the link, while the dialer never
// sees the handshake end, gives the route up at the pre-flight timeout and
// falls back to Ethernet — the abandoned half-link of a loaded machine.
type withholdProxy struct {
	ln       net.Listener
	target   string
	withheld atomic.Int32 // connections whose worker side was withheld
}

func startWithholdProxy(t *testing.T, addr netip.Addr, target string) *withholdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	p := &withholdProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
	return p
}

func (p *withholdProxy) pipe(down net.Conn) {
	defer down.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	var (
		mu        sync.Mutex
		forwarded bool // the worker's accept went back to the dialer
		withhold  bool // the dialer answered it: withhold the rest
	)
	go func() {
		defer down.Close()
		buf := make([]byte, 4096)
		for {
			n, err := up.Read(buf)
			if n > 0 {
				mu.Lock()
				w := withhold
				forwarded = forwarded || !w
				mu.Unlock()
				if w {
					p.withheld.Add(1)
				} else if _, werr := down.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 4096)
	for {
		n, err := down.Read(buf)
		if n > 0 {
			mu.Lock()
			withhold = withhold || forwarded
			mu.Unlock()
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // the dialer gave the route up: the worker's link dies
		}
	}
}

// TestLinkFallbackAfterAbandonedHandshake: the pre-flight's fast route
// completes the handshake on the accepting worker only, and the dialer
// falls back to Ethernet. The accepting worker must wait for the link the
// dialer confirms instead of computing on the abandoned one (its halos
// would vanish there and its receives fail when the link dies).
func TestLinkFallbackAfterAbandonedHandshake(t *testing.T) {
	ws, id, secret := startWorkers(t, "alpha-1", "alpha-2")
	var proxies []*withholdProxy
	for _, w := range ws {
		// Put a proxy before each worker's fast data address, whichever
		// of the two ranks dials.
		for i, a := range w.Hello.Listen {
			hp, ok := strings.CutPrefix(a, "tcp://")
			ap, err := netip.ParseAddrPort(hp)
			if !ok || err != nil || ap.Addr() != w.Host.FastAddr {
				continue
			}
			p := startWithholdProxy(t, ap.Addr(), hp)
			proxies = append(proxies, p)
			w.Hello.Listen[i] = "tcp://" + p.ln.Addr().String()
		}
	}
	if len(proxies) != 2 {
		t.Fatalf("%d fast data addresses proxied, want 2", len(proxies))
	}
	var mu sync.Mutex
	var logs []string
	spec := jobs.Spec{App: "obstacle", Params: map[string]string{"n": "20", "eps": "1e-8"}, Scheme: jobs.Synchronous,
		Nodes: jobs.NodeSelection{Any: 2}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, RunOptions{Inventory: inventory.Embedded(), Workers: ws, RunID: id, Secret: secret, NoRecord: true,
		OnLog: func(ev solve.LogEvent) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, ev.Node+": "+ev.Text)
		}})
	if err != nil || rep.Outcome != "ok" {
		t.Fatalf("run after an abandoned handshake: %v; %s", err, summary(rep))
	}
	withheld := int32(0)
	for _, p := range proxies {
		withheld += p.withheld.Load()
	}
	if withheld == 0 {
		t.Fatal("no handshake was cut short: the test did not provoke the abandoned link")
	}
	mu.Lock()
	fellBack := false
	for _, l := range logs {
		fellBack = fellBack || strings.Contains(l, "falling back to ethernet")
	}
	mu.Unlock()
	if !fellBack {
		t.Errorf("no pre-flight fallback to Ethernet logged: %q", logs)
	}
	for _, n := range rep.Nodes {
		eth := uint64(0)
		for _, tr := range n.Traffic {
			if tr.Network == "ethernet" {
				eth = tr.Messages
			}
		}
		if eth == 0 {
			t.Errorf("node %s exchanged no halo over Ethernet: %+v", n.Node, n.Traffic)
		}
	}
}
