package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// TestConnectRetry dials a control endpoint that starts listening only
// after the first dials were refused: the dial is retried and succeeds. A
// dial with the wrong secret is not retried.
func TestConnectRetry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "tcp://" + ln.Addr().String()
	ln.Close() // nothing listens there yet: dials are refused
	id, secret := deploy.NewRunSecret()
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = id, secret, SubmitterID
	dialer, err := rmnp.Listen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer dialer.Close()
	started := make(chan *rmnp.Endpoint, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		c := cfg
		c.Self, c.Listen = NodeID("alpha-1"), []string{addr}
		ep, err := rmnp.Listen(ctx, c)
		if err != nil {
			t.Error(err)
		}
		started <- ep
	}()
	t0 := time.Now()
	if err := connectRetry(ctx, dialer, NodeID("alpha-1"), addr); err != nil {
		t.Fatalf("connect with retries: %v", err)
	}
	if d := time.Since(t0); d < 400*time.Millisecond {
		t.Errorf("connected after %v, before the peer listened", d)
	}
	ep := <-started
	defer ep.Close()

	other := cfg
	other.Secret = []byte("another run's secret, 32 bytes!")
	other.Self = NodeID("beta-1")
	wrong, err := rmnp.Listen(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	t0 = time.Now()
	if err := connectRetry(ctx, wrong, NodeID("alpha-1"), addr); err == nil {
		t.Fatal("a dial with the wrong secret succeeded")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("a refused handshake took %v: retried as if transient", d)
	}
}

func TestTransientDial(t *testing.T) {
	tests := map[string]struct {
		err  error
		want bool
	}{
		"refused":                        {fmt.Errorf("rmnp: connect: %w", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		"reset":                          {fmt.Errorf("rmnp: handshake: %w", syscall.ECONNRESET), true},
		"eof":                            {fmt.Errorf("rmnp: handshake: %w", io.EOF), true},
		"deadline":                       {fmt.Errorf("rmnp: handshake: %w", os.ErrDeadlineExceeded), true},
		"bad mac":                        {errors.New("rmnp: handshake: bad mac"), false},
		"closed":                         {rmnp.ErrClosed, false},
		"connection closed by a timeout": {fmt.Errorf("rmnp: handshake: %w", net.ErrClosed), true},
		"context deadline":               {fmt.Errorf("probe: preflight: %w", context.DeadlineExceeded), true},
		"wrong secret, then closed":      {fmt.Errorf("rmnp: handshake: %w: %w", rmnp.ErrAuth, io.EOF), false},
		"handshake read timed out":       {fmt.Errorf("rmnp: handshake: %w: reading done: %w", rmnp.ErrAuth, os.ErrDeadlineExceeded), true},
	}
	for name, tc := range tests {
		if got := transientDial(tc.err); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", name, got, tc.want)
		}
	}
}

// TestPreflightRetry checks the retried pre-flight of a neighbour: rounds
// whose candidates all fail transiently are tried again (with a longer
// timeout each) until one answers; a failure a retry cannot cure ends it
// at once; the start-up deadline bounds it.
func TestPreflightRetry(t *testing.T) {
	routes := []probe.Route{{A: "alpha-1", B: "alpha-2", Network: probe.Infiniband, AAddr: "127.18.64.10", BAddr: "127.18.64.11"},
		{A: "alpha-1", B: "alpha-2", Network: probe.Ethernet, AAddr: "127.16.64.10", BAddr: "127.16.64.11"}}
	refused := fmt.Errorf("rmnp: connect: %w", syscall.ECONNREFUSED)
	timedOut := fmt.Errorf("rmnp: handshake: %w", net.ErrClosed)
	tests := map[string]struct {
		fail     func(call int, r probe.Route) error // nil: the dial succeeds
		budget   time.Duration
		rounds   int
		network  probe.Kind // "" when it must fail
		maxTaken time.Duration
	}{
		"answers at once": {fail: func(int, probe.Route) error { return nil }, budget: 5 * time.Second, rounds: 1, network: probe.Infiniband},
		"falls back in the same round": {fail: func(_ int, r probe.Route) error {
			if r.Network == probe.Infiniband {
				return timedOut
			}
			return nil
		}, budget: 5 * time.Second, rounds: 1, network: probe.Ethernet},
		"starting neighbour, retried": {fail: func(call int, r probe.Route) error {
			if call < 7 {
				return refused
			}
			return nil
		}, budget: 20 * time.Second, rounds: 4, network: probe.Infiniband},
		"wrong secret, not retried": {fail: func(int, probe.Route) error { return fmt.Errorf("rmnp: %w", rmnp.ErrAuth) },
			budget: 5 * time.Second, rounds: 1},
		"bounded by the start-up": {fail: func(int, probe.Route) error { return refused }, budget: 3 * time.Second,
			maxTaken: 3*time.Second + 500*time.Millisecond},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.budget)
			defer cancel()
			calls := 0
			var timeouts []time.Duration
			dial := func(ctx context.Context, r probe.Route) error {
				if dl, ok := ctx.Deadline(); ok {
					timeouts = append(timeouts, time.Until(dl))
				}
				calls++
				return tc.fail(calls, r)
			}
			t0 := time.Now()
			r, _, rounds, err := preflightRetry(ctx, routes, dial)
			taken := time.Since(t0)
			if tc.network == "" {
				if err == nil {
					t.Fatalf("pre-flight succeeded over %s, want a failure", r.Network)
				}
			} else if err != nil || r.Network != tc.network {
				t.Fatalf("pre-flight chose %q (%v), want %s", r.Network, err, tc.network)
			}
			if tc.rounds > 0 && rounds != tc.rounds {
				t.Errorf("%d rounds, want %d", rounds, tc.rounds)
			}
			if tc.maxTaken > 0 && taken > tc.maxTaken {
				t.Errorf("took %v, want at most %v", taken, tc.maxTaken)
			}
			// Each round gives a candidate longer than the last (the
			// budget's end aside).
			if tc.rounds >= 3 && timeouts[4] <= timeouts[0] {
				t.Errorf("timeouts per attempt %v: do not grow", timeouts)
			}
		})
	}
}
