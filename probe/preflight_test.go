package probe

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// listen accepts (and closes) connections on addr:0 until the test ends and
// returns the port.
func listen(t *testing.T, addr string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).Port
}

// pfNodes are two nodes of one cluster on test-only loopback addresses
// (127.77.*, away from the local grid's 127.16/127.18 ranges).
func pfNodes() (Node, Node) {
	return node("p1", "P", nic("eth", Ethernet, "127.77.64.10"), nic("ib", Infiniband, "127.78.64.10")),
		node("p2", "P", nic("eth", Ethernet, "127.77.64.11"), nic("ib", Infiniband, "127.78.64.11"))
}

func TestPreflightRealSockets(t *testing.T) {
	a, b := pfNodes()
	cands, err := Candidates(a, b, Locality{})
	if err != nil || len(cands) != 2 {
		t.Fatalf("candidates %v, %v", cands, err)
	}
	ethPort := listen(t, "127.77.64.11")
	ibPort := listen(t, "127.78.64.11")
	// Nothing listens on 127.78.64.11:ethPort or 127.77.64.11:ibPort (each
	// listener is bound to one address), so those dials are refused.
	tests := []struct {
		name         string
		ports        map[Kind]int
		wantNet      Kind
		wantWarnings int
		wantErr      error
	}{
		{"fast network answers", map[Kind]int{Infiniband: ibPort, Ethernet: ethPort}, Infiniband, 0, nil},
		{"fast network refused: ethernet with a warning", map[Kind]int{Infiniband: ethPort, Ethernet: ethPort}, Ethernet, 1, nil},
		{"nothing answers", map[Kind]int{Infiniband: ethPort, Ethernet: ibPort}, "", 1, ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dial := func(ctx context.Context, r Route) error { return DialTCP(ctx, r, tt.ports[r.Network]) }
			got, warns, err := Preflight(context.Background(), cands, dial, 5*time.Second)
			if len(warns) != tt.wantWarnings {
				t.Errorf("warnings %q, want %d", warns, tt.wantWarnings)
			}
			for _, w := range warns {
				if !strings.Contains(w, "p1 ↔ p2") || !strings.Contains(w, "127.78.64.10 ↔ 127.78.64.11") {
					t.Errorf("warning %q does not name the pair and addresses", w)
				}
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, syscall.ECONNREFUSED) {
					t.Fatalf("err = %v, want %v wrapping ECONNREFUSED", err, tt.wantErr)
				}
				for _, s := range []string{"p1 ↔ p2", "infiniband 127.78.64.10 ↔ 127.78.64.11", "ethernet 127.77.64.10 ↔ 127.77.64.11"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Network != tt.wantNet {
				t.Errorf("chose %s, want %s", got.Network, tt.wantNet)
			}
		})
	}
}

func TestPreflightTimeoutFallsBack(t *testing.T) {
	a, b := pfNodes()
	cands, err := Candidates(a, b, Locality{})
	if err != nil {
		t.Fatal(err)
	}
	// The fast network swallows the dial (a blackholed route); the per-dial
	// timeout must end it and move on.
	dial := func(ctx context.Context, r Route) error {
		if r.Network == Infiniband {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	got, warns, err := Preflight(context.Background(), cands, dial, 20*time.Millisecond)
	if err != nil || got.Network != Ethernet || len(warns) != 1 || !strings.Contains(warns[0], "deadline exceeded") {
		t.Errorf("got %+v, %q, %v; want ethernet after one timeout warning", got, warns, err)
	}
}

func TestPreflightContextCancelled(t *testing.T) {
	a, b := pfNodes()
	cands, _ := Candidates(a, b, Locality{})
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	dial := func(ctx context.Context, r Route) error { calls++; cancel(); return errors.New("interrupted") }
	_, _, err := Preflight(ctx, cands, dial, time.Second)
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("err = %v after %d dials, want context.Canceled after 1", err, calls)
	}
}

func TestPreflightNoCandidates(t *testing.T) {
	_, _, err := Preflight(context.Background(), nil, func(context.Context, Route) error { return nil }, 0)
	if !errors.Is(err, ErrNoRoute) {
		t.Errorf("err = %v, want ErrNoRoute", err)
	}
}

func TestDialTCPRejectsUnix(t *testing.T) {
	r, err := BestNetwork(node("u1", ""), node("u1", ""), Locality{})
	if err != nil {
		t.Fatal(err)
	}
	if err := DialTCP(context.Background(), r, 1); !errors.Is(err, ErrNotTCP) {
		t.Errorf("DialTCP(unix route) = %v, want ErrNotTCP", err)
	}
}
