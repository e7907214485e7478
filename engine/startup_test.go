package engine

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
		"refused":  {fmt.Errorf("rmnp: connect: %w", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		"reset":    {fmt.Errorf("rmnp: handshake: %w", syscall.ECONNRESET), true},
		"eof":      {fmt.Errorf("rmnp: handshake: %w", io.EOF), true},
		"deadline": {fmt.Errorf("rmnp: handshake: %w", os.ErrDeadlineExceeded), true},
		"bad mac":  {errors.New("rmnp: handshake: bad mac"), false},
		"closed":   {rmnp.ErrClosed, false},
	}
	for name, tc := range tests {
		if got := transientDial(tc.err); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", name, got, tc.want)
		}
	}
}
