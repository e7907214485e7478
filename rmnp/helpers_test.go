package rmnp

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

var testRun = [16]byte{'t', 'e', 's', 't', '-', 'r', 'u', 'n'}
var testSecret = []byte("0123456789abcdef-test-secret")

// transports lists the networks every behaviour is tested on.
var transports = []string{"tcp", "unix"}

func listenAddr(t testing.TB, transport string) string {
	if transport == "unix" {
		return "unix://" + filepath.Join(t.TempDir(), "ep.sock")
	}
	return "tcp://127.0.0.1:0"
}

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

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkGoroutines fails t if goroutines started during the test outlive it.
func checkGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func each(t *testing.T, f func(t *testing.T, transport string)) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) { f(t, tr) })
	}
}

func msgOf(i int) []byte { return []byte(fmt.Sprintf("message-%06d", i)) }
