package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/rmnp"
)

// checkPrefixesOnce fails unless text carries "engine:" exactly once, at the
// start, and "rank <rank>:" exactly once.
func checkPrefixesOnce(t *testing.T, text string, rank int) {
	t.Helper()
	if n := strings.Count(text, "engine:"); n != 1 || !strings.HasPrefix(text, "engine: ") {
		t.Errorf("%q: %d × \"engine:\", want one, in front", text, n)
	}
	if n := strings.Count(text, fmt.Sprintf("rank %d:", rank)); n != 1 {
		t.Errorf("%q: %d × \"rank %d:\", want one", text, n, rank)
	}
}

// TestSolveErrorPrefixOnce provokes errors deep in Solve's wrapping chain
// (a sentinel wrapped by a neighbour's context, wrapped by the rank) with a
// fake neighbour and a stranger on real loopback endpoints: each text
// carries "engine:" and "rank 0:" once. They used to read "engine: rank 0:
// engine: message from…" and "engine: rank 0: halo from rank 1: engine:
// malformed…".
func TestSolveErrorPrefixOnce(t *testing.T) {
	tests := map[string]struct {
		scheme Scheme
		// provoke makes rank 0 fail: nb is rank 1's endpoint (which runs no
		// Solve), stranger a linked endpoint that is no neighbour (peer 9).
		provoke func(ctx context.Context, nb, stranger *rmnp.Endpoint) error
		want    string
		is      error
	}{
		"message from a non-neighbour": {scheme: Asynchronous,
			provoke: func(ctx context.Context, _, stranger *rmnp.Endpoint) error {
				return stranger.Send(ctx, 1, []byte("hello"), rmnp.DATA)
			},
			want: "engine: rank 0: message from peer 9, not a neighbour"},
		"malformed control message": {scheme: Asynchronous,
			provoke: func(ctx context.Context, nb, _ *rmnp.Endpoint) error {
				return nb.Send(ctx, 1, []byte{0xff}, rmnp.CTRL)
			},
			want: "engine: rank 0: control message from rank 1: malformed neighbour message: 1-byte control message",
			is:   errWire},
		"halo of the wrong length": {scheme: Synchronous,
			provoke: func(ctx context.Context, nb, _ *rmnp.Endpoint) error {
				return nb.SendFloat64s(ctx, 1, []float64{0, math.Float64frombits(haloSync), 1, 2, 3}, rmnp.DATA)
			},
			want: "engine: rank 0: halo from rank 1: malformed neighbour message: 3 values, want 64: application \"obstacle\": rank 1's outgoing values for rank 0 and their halo differ in length",
			is:   errWire},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := chainRun{p: obstacle.Problem{N: 8, Eps: 1e-3}, ranks: 2, cores: 1, scheme: tc.scheme}
			eps := c.endpoints(t, ctx)
			stranger := strangerOf(t, ctx, eps[0], c.mode(0))
			if err := tc.provoke(ctx, eps[1], stranger); err != nil {
				t.Fatal(err)
			}
			var last NodeStatus
			st := Subtask{PartTask: definedTasks(t, "obstacle", obstacleParams(c.p), 2, 1)[0], Cores: 1, Scheme: tc.scheme,
				Neighbours: c.chainNeighbours(0)}
			_, err := Solve(ctx, eps[0], st, func(s NodeStatus) { last = s })
			if err == nil || ctx.Err() != nil {
				t.Fatalf("Solve: %v (context %v), want rank 0 to fail", err, ctx.Err())
			}
			if err.Error() != tc.want {
				t.Errorf("error %q, want %q", err, tc.want)
			}
			checkPrefixesOnce(t, err.Error(), 0)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
			// The node's last status says why, after its name: no prefix.
			if last.State != StateFailed || strings.Contains(last.Err, "engine:") || strings.Contains(last.Err, "rank 0:") {
				t.Errorf("last status %v %q, want failed with the bare cause", last.State, last.Err)
			}
		})
	}
}

// strangerOf returns an endpoint (peer 9) linked to ep that is no
// neighbour of ep's rank.
func strangerOf(t *testing.T, ctx context.Context, ep *rmnp.Endpoint, mode rmnp.Mode) *rmnp.Endpoint {
	t.Helper()
	cfg := rmnp.DefaultConfig()
	cfg.RunID = solveRun
	cfg.Secret = []byte("solve-test-secret-0123456789")
	cfg.Self = 9
	cfg.Listen = []string{"tcp://127.0.0.1:0"}
	cfg.DialTimeout = time.Minute
	s, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := ep.Connect(ctx, 9, s.Addrs()[0], rmnp.LinkOptions{Mode: mode, Network: "ethernet"}); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitPeer(ctx, ep.Self()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWrapErr: wrapping keeps one package prefix at any depth, unwraps to
// the cause, and leaves other packages' prefixes alone.
func TestWrapErr(t *testing.T) {
	down := errors.New("rmnp: peer 3 down")
	tests := map[string]struct {
		err  error
		want string
		is   error
	}{
		"foreign cause": {WrapErr(WrapErr(down, "halo from rank 2"), "rank 1"),
			"engine: rank 1: halo from rank 2: rmnp: peer 3 down", down},
		"sentinel in the middle": {WrapErr(WrapErr(fmt.Errorf("%w: update 4 from lower", ErrTermination), "update from rank 0"), "rank 1"),
			"engine: rank 1: update from rank 0: termination protocol violated: update 4 from lower", ErrTermination},
		"prefixed cause": {WrapErr(errors.New("engine: message from peer 9, not a neighbour"), "rank 1"),
			"engine: rank 1: message from peer 9, not a neighbour", nil},
		"nil": {WrapErr(nil, "rank 1"), "", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.err == nil {
				if tc.want != "" {
					t.Fatal("nil error")
				}
				return
			}
			if tc.err.Error() != tc.want {
				t.Errorf("%q, want %q", tc.err, tc.want)
			}
			if tc.is != nil && !errors.Is(tc.err, tc.is) {
				t.Errorf("%q does not wrap %v", tc.err, tc.is)
			}
		})
	}
}

// TestNeighbourLost checks which halo errors are a neighbour's failure
// (reported late, so that the failed node is named first): a link closed,
// broken, or already gone when the send looked for it.
func TestNeighbourLost(t *testing.T) {
	tests := map[string]struct {
		err  error
		want bool
	}{
		"peer down":     {fmt.Errorf("halo to rank 3: %w", rmnp.ErrPeerDown), true},
		"peer closed":   {fmt.Errorf("halo to rank 3: %w", rmnp.ErrPeerClosed), true},
		"link gone":     {fmt.Errorf("halo to rank 17: %w: 2371679955", rmnp.ErrUnknownPeer), true},
		"application":   {fmt.Errorf("%w: σ is NaN", ErrApplication), false},
		"endpoint shut": {rmnp.ErrClosed, false},
	}
	for name, tc := range tests {
		if got := NeighbourLost(tc.err); got != tc.want {
			t.Errorf("%s: neighbourLost = %v, want %v", name, got, tc.want)
		}
	}
}
