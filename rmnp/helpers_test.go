package rmnp

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/internal/rmnptest"
)

// The helpers rmnp's and rmnp/gateway's tests share (internal/rmnptest).
var (
	testRun         = rmnptest.RunID
	testSecret      = rmnptest.Secret
	listenAddr      = rmnptest.ListenAddr
	testCtx         = rmnptest.Ctx
	checkGoroutines = rmnptest.CheckGoroutines
	msgOf           = rmnptest.Msg
)

// transports lists the networks every behaviour is tested on.
var transports = []string{"tcp", "unix"}

func testConfig(t testing.TB, self PeerID, transport string) Config {
	cfg := DefaultConfig()
	cfg.RunID = testRun
	cfg.Secret = testSecret
	cfg.Self = self
	cfg.Listen = []string{listenAddr(t, transport)}
	return cfg
}

func newEndpoint(t testing.TB, cfg Config) *Endpoint {
	t.Helper()
	e, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// pair returns two connected endpoints 1 (dialer) and 2 (acceptor).
func pair(t testing.TB, transport string, opts LinkOptions) (*Endpoint, *Endpoint) {
	t.Helper()
	a := newEndpoint(t, testConfig(t, 1, transport))
	b := newEndpoint(t, testConfig(t, 2, transport))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Connect(ctx, 2, b.Addrs()[0], opts); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if err := b.WaitPeer(ctx, 1); err != nil {
		t.Fatalf("wait peer: %v", err)
	}
	return a, b
}

func each(t *testing.T, f func(t *testing.T, transport string)) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) { f(t, tr) })
	}
}

// waitFor polls cond until it holds or 10 s pass (generous: the machine is shared).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// linkStats returns the stats of e's only link.
func linkStats(t testing.TB, e *Endpoint) LinkStats {
	t.Helper()
	s := e.Stats()
	if len(s.Links) != 1 {
		t.Fatalf("want 1 link, have %d", len(s.Links))
	}
	return s.Links[0]
}

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func captureLog(cfg *Config) *lockedBuffer {
	b := &lockedBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return b
}

// rawDial opens a connection to addr and runs the dialer's handshake as peer from,
// returning the bare connection (for tests that misbehave after the handshake).
func rawDial(t testing.TB, addr string, from, to PeerID) net.Conn {
	t.Helper()
	network, address, err := ParseAddr(addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cfg := testConfig(t, from, "tcp")
	if _, err := DialHandshake(c, &cfg, to, LinkOptions{Network: "raw"}); err != nil {
		t.Fatalf("raw handshake: %v", err)
	}
	return c
}

// rawFrame encodes one frame.
func rawFrame(typ, flags uint8, payload []byte, seq uint32) []byte {
	var h Header
	h.Encode(typ, flags, uint32(len(payload)), uint32(len(payload)), seq)
	return append(append(h[:], make([]byte, h.Pad())...), payload...)
}
