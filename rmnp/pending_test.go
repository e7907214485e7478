package rmnp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// idleConn opens a TCP connection to addr from the local address src and sends
// nothing: a handshake that stays pending.
func idleConn(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	_, address, _ := ParseAddr(addr)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByPeer reports whether the far end closed c within a few seconds without
// writing anything.
func closedByPeer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, err := c.Read(make([]byte, 1))
	return n == 0 && errors.Is(err, io.EOF)
}

func pendingCount(e *Endpoint) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.handshaking)
}

// TestPendingHandshakeLimits checks that idle connections cannot pile up: beyond
// MaxPendingPerSource from one address, or MaxPendingHandshakes in all, a
// connection is closed at once; others' and later honest handshakes go through.
func TestPendingHandshakeLimits(t *testing.T) {
	checkGoroutines(t)
	cfg := testConfig(t, 2, "tcp")
	cfg.DialTimeout = time.Minute // idle connections stay pending for the whole test
	cfg.MaxPendingHandshakes, cfg.MaxPendingPerSource = 5, 3
	logs := captureLog(&cfg)
	b := newEndpoint(t, cfg)
	addr := b.Addrs()[0]
	var idle []net.Conn
	for range 3 {
		idle = append(idle, idleConn(t, "127.0.0.2", addr))
	}
	waitFor(t, "3 pending", func() bool { return pendingCount(b) == 3 })
	if !closedByPeer(idleConn(t, "127.0.0.2", addr)) {
		t.Fatal("a 4th pending handshake from one address was kept")
	}
	for range 2 {
		idle = append(idle, idleConn(t, "127.0.0.3", addr))
	}
	waitFor(t, "5 pending", func() bool { return pendingCount(b) == 5 })
	if !closedByPeer(idleConn(t, "127.0.0.4", addr)) {
		t.Fatal("a 6th pending handshake was kept")
	}
	for _, c := range idle[:3] {
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !isTimeout(err) {
			t.Fatalf("a pending handshake under the bounds was closed: %v", err)
		}
	}
	for _, c := range idle {
		c.Close()
	}
	waitFor(t, "no pending", func() bool { return pendingCount(b) == 0 })
	a := newEndpoint(t, testConfig(t, 1, "tcp"))
	if err := a.Connect(testCtx(t), 2, addr, LinkOptions{}); err != nil {
		t.Fatalf("honest peer after the flood: %v", err)
	}
	if log := logs.String(); !strings.Contains(log, "too many pending handshakes") {
		t.Errorf("refusal not logged:\n%s", log)
	}
	bad := cfg
	bad.MaxPendingPerSource = -1
	if _, err := Listen(context.Background(), bad); !errors.Is(err, ErrConfig) {
		t.Fatalf("negative bound: %v", err)
	}
}

// TestFailedHandshakesFreePlaces checks that a rejected handshake gives its place
// back: more rejected dialers than the bound, one after the other, leave room.
func TestFailedHandshakesFreePlaces(t *testing.T) {
	cfg := testConfig(t, 2, "tcp")
	cfg.MaxPendingHandshakes, cfg.MaxPendingPerSource = 2, 2
	b := newEndpoint(t, cfg)
	for range 4 {
		c := testConfig(t, 1, "tcp")
		c.Secret = []byte("another secret, 16+ bytes")
		a := newEndpoint(t, c)
		if err := a.Connect(testCtx(t), 2, b.Addrs()[0], LinkOptions{}); !errors.Is(err, ErrAuth) {
			t.Fatalf("wrong secret: %v", err)
		}
	}
	waitFor(t, "no pending", func() bool { return pendingCount(b) == 0 })
	a := newEndpoint(t, testConfig(t, 1, "tcp"))
	if err := a.Connect(testCtx(t), 2, b.Addrs()[0], LinkOptions{}); err != nil {
		t.Fatalf("honest peer after rejected ones: %v", err)
	}
}

// TestRejectionRevealsNothing checks that a HELLO for another run or another peer
// gets an ACCEPT that names neither the acceptor's peer id nor its byte order.
func TestRejectionRevealsNothing(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		b := newEndpoint(t, testConfig(t, 0x01020304, tr))
		network, address, _ := ParseAddr(b.Addrs()[0])
		for name, h := range map[string]hello{
			"wrong run":  {run: [16]byte{9}, from: 1, to: 0x01020304},
			"wrong peer": {run: testRun, from: 1, to: 7},
		} {
			t.Run(name, func(t *testing.T) {
				h.version, h.order = ProtoVersion, hostOrder
				c, err := net.Dial(network, address)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				var hb [HelloSize]byte
				h.Encode(&hb)
				c.Write(hb[:])
				var ab [AcceptSize]byte
				if _, err := io.ReadFull(c, ab[:]); err != nil {
					t.Fatal(err)
				}
				if ab[6] == statusOK || !bytes.Equal(ab[8:12], make([]byte, 4)) || ab[5] != 0 {
					t.Fatalf("rejection reveals: status %d, id % x, order %d", ab[6], ab[8:12], ab[5])
				}
				if !allZero(ab[12:]) {
					t.Fatalf("rejection carries nonce or mac: % x", ab[12:])
				}
			})
		}
	})
}
