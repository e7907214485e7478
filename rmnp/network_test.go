package rmnp

import (
	"bytes"
	"errors"
	"strings"
	"syscall"
	"testing"
)

// TestSeveralNetworks runs an endpoint that listens on TCP and on a Unix socket at
// once, with one peer on each, and checks the per-network counters.
func TestSeveralNetworks(t *testing.T) {
	checkGoroutines(t)
	ctx := testCtx(t)
	cfg := testConfig(t, 2, "unix")
	cfg.Listen = append(cfg.Listen, "tcp://127.18.64.10:0") // the local grid's fast network
	hub := newEndpoint(t, cfg)
	addrs := hub.Addrs()
	if len(addrs) != 2 || addrs[0][:7] != "unix://" || !strings.HasPrefix(addrs[1], "tcp://127.18.64.10:") {
		t.Fatalf("addrs %v", addrs)
	}
	peers := map[PeerID]string{1: "unix", 3: "ethernet"}
	for id, network := range peers {
		e := newEndpoint(t, testConfig(t, id, "tcp"))
		addr := addrs[1]
		if network == "unix" {
			addr = addrs[0]
		}
		if err := e.Connect(ctx, 2, addr, LinkOptions{Network: network}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(id); i++ {
			if err := e.Send(ctx, 2, msgOf(i), DATA); err != nil {
				t.Fatal(err)
			}
		}
	}
	buf := make([]byte, 64)
	for id := range peers {
		for i := 0; i < int(id); i++ {
			k, err := hub.Receive(ctx, id, buf, DATA)
			if err != nil || !bytes.Equal(buf[:k], msgOf(i)) {
				t.Fatalf("peer %d message %d: %q %v", id, i, buf[:k], err)
			}
		}
	}
	got := map[string]uint64{}
	for _, n := range hub.Stats().Networks {
		got[n.Network] = n.MessagesReceived
	}
	if len(got) != 2 || got["unix"] != 1 || got["ethernet"] != 3 {
		t.Fatalf("per-network counters %v", got)
	}
}

// TestSimultaneousDial has both sides of a pair dial each other: both links are
// accepted and each direction stays ordered.
func TestSimultaneousDial(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		ctx := testCtx(t)
		a := newEndpoint(t, testConfig(t, 1, tr))
		b := newEndpoint(t, testConfig(t, 2, tr))
		errc := make(chan error, 2)
		go func() { errc <- a.Connect(ctx, 2, b.Addrs()[0], LinkOptions{Network: tr}) }()
		go func() { errc <- b.Connect(ctx, 1, a.Addrs()[0], LinkOptions{Network: tr}) }()
		for range 2 {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, "two links each", func() bool {
			return len(a.Stats().Links) == 2 && len(b.Stats().Links) == 2
		})
		const n = 100
		for _, s := range []struct {
			from, to *Endpoint
		}{{a, b}, {b, a}} {
			go func() {
				for i := 0; i < n; i++ {
					if err := s.from.Send(ctx, s.to.Self(), msgOf(i), DATA); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		buf := make([]byte, 64)
		for _, s := range []struct {
			from, to *Endpoint
		}{{a, b}, {b, a}} {
			for i := 0; i < n; i++ {
				k, err := s.to.Receive(ctx, s.from.Self(), buf, DATA)
				if err != nil || !bytes.Equal(buf[:k], msgOf(i)) {
					t.Fatalf("%d→%d message %d: %q %v", s.from.Self(), s.to.Self(), i, buf[:k], err)
				}
			}
		}
	})
}

func TestStaleUnixSocketReplaced(t *testing.T) {
	cfg := testConfig(t, 2, "unix")
	path := cfg.Listen[0][len("unix://"):]
	// A socket file left by a crashed worker: bound, never listened on.
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	e := newEndpoint(t, cfg)
	// A live endpoint's socket is never taken over.
	if _, err := Listen(testCtx(t), cfg); err == nil {
		t.Fatal("second endpoint took over a live socket")
	}
	if got := e.Addrs()[0]; got != cfg.Listen[0] {
		t.Fatalf("addr %s", got)
	}
}

// TestWaitPeerSeesNewLink races WaitPeer with the link coming up: it must return
// as soon as the link is there (the link is registered before the signal).
func TestWaitPeerSeesNewLink(t *testing.T) {
	checkGoroutines(t)
	for i := 0; i < 20; i++ {
		a := newEndpoint(t, testConfig(t, 1, "unix"))
		b := newEndpoint(t, testConfig(t, 2, "unix"))
		ctx := testCtx(t)
		waited := make(chan error, 1)
		go func() { waited <- b.WaitPeer(ctx, 1) }()
		if err := a.Connect(ctx, 2, b.Addrs()[0], LinkOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := <-waited; err != nil {
			t.Fatalf("iteration %d: WaitPeer: %v", i, err)
		}
		a.Close()
		b.Close()
	}
}

// TestCloseDrainsQueuedSends closes right after an asynchronous send: the queued
// update is written before GOAWAY, and the peer sees a clean close.
func TestCloseDrainsQueuedSends(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Async, Network: tr})
		ctx := testCtx(t)
		payload := bytes.Repeat([]byte("u"), 1<<20)
		if err := a.Send(ctx, 2, payload, DATA); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 2<<20)
		n, err := b.Receive(ctx, 1, buf, DATA)
		if err != nil || n != len(payload) {
			t.Fatalf("queued update lost at Close: %d %v", n, err)
		}
		ev := <-b.PeerDown()
		if !errors.Is(ev.Err, ErrPeerClosed) {
			t.Fatalf("peer saw %v, want a clean close", ev.Err)
		}
		if err := a.Send(ctx, 2, payload, DATA); !errors.Is(err, ErrClosed) {
			t.Fatalf("send after Close: %v", err)
		}
	})
}
