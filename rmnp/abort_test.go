package rmnp

import (
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// freezeProxy forwards TCP to target until frozen, then holds its
// connections open and forwards nothing: a peer cut off by the network,
// which never acknowledges and never resets.
type freezeProxy struct {
	ln     net.Listener
	frozen atomic.Bool
}

func startFreezeProxy(t *testing.T, target string) *freezeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezeProxy{ln: ln}
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				down.Close()
				continue
			}
			conns = append(conns, down, up)
			go p.copy(up, down)
			go p.copy(down, up)
		}
	}()
	return p
}

func (p *freezeProxy) copy(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.frozen.Load() { // hold everything: the peer is cut off
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestAbortDoesNotWaitOnCutPeer checks that Abort — the end of a failed or
// finished run, whose queued data no peer needs — returns at once when a
// link's peer is cut off with data queued for it, while Close waits up to
// CloseTimeout for that data to be written.
func TestAbortDoesNotWaitOnCutPeer(t *testing.T) {
	for _, abort := range []bool{true, false} {
		name := "close"
		if abort {
			name = "abort"
		}
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, 1, "tcp")
			cfg.CloseTimeout = time.Second
			a := newEndpoint(t, cfg)
			b := newEndpoint(t, testConfig(t, 2, "tcp"))
			p := startFreezeProxy(t, strings.TrimPrefix(b.Addrs()[0], "tcp://"))
			ctx := testCtx(t)
			if err := a.Connect(ctx, 2, "tcp://"+p.ln.Addr().String(), LinkOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := b.WaitPeer(ctx, 1); err != nil {
				t.Fatal(err)
			}
			p.frozen.Store(true)
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			go func() {
				buf := make([]byte, 1<<20)
				for sctx.Err() == nil {
					if a.Send(sctx, 2, buf, DATA) != nil {
						return
					}
				}
			}()
			time.Sleep(300 * time.Millisecond) // the socket buffers fill up
			start := time.Now()
			if abort {
				a.Abort()
			} else {
				a.Close()
			}
			took := time.Since(start)
			t.Logf("%s took %v", name, took)
			if abort && took > cfg.CloseTimeout/2 {
				t.Errorf("Abort took %v with a cut-off peer, want well under CloseTimeout %v", took, cfg.CloseTimeout)
			}
			if !abort && took < cfg.CloseTimeout/2 {
				t.Logf("Close did not wait (%v): the data was written after all", took)
			}
		})
	}
}
