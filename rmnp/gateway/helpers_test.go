package gateway

// Copies of rmnp's test helpers for the gateway's tests.

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

var testRun = [16]byte{'t', 'e', 's', 't', '-', 'r', 'u', 'n'}
var testSecret = []byte("0123456789abcdef-test-secret")

// fuzzMaxFrame is the frame bound of the fuzz tests (rmnp's).
const fuzzMaxFrame = 1 << 16

func listenAddr(t testing.TB, transport string) string {
	if transport == "unix" {
		return "unix://" + filepath.Join(t.TempDir(), "ep.sock")
	}
	return "tcp://127.0.0.1:0"
}

func testConfig(t testing.TB, self rmnp.PeerID, transport string) rmnp.Config {
	cfg := rmnp.DefaultConfig()
	cfg.RunID = testRun
	cfg.Secret = testSecret
	cfg.Self = self
	cfg.Listen = []string{listenAddr(t, transport)}
	return cfg
}

func newEndpoint(t testing.TB, cfg rmnp.Config) *rmnp.Endpoint {
	t.Helper()
	e, err := rmnp.Listen(context.Background(), cfg)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
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

func msgOf(i int) []byte { return []byte(fmt.Sprintf("message-%06d", i)) }
