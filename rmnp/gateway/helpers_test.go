package gateway

// rmnp's test helpers that need rmnp, for the gateway's tests (those that
// do not are internal/rmnptest's).

import (
	"context"
	"testing"

	"github.com/gridtui/gridtui/internal/rmnptest"
	"github.com/gridtui/gridtui/rmnp"
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

// fuzzMaxFrame is the frame bound of the fuzz tests (rmnp's).
const fuzzMaxFrame = 1 << 16

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
