package rmnp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// stalledPair is a linked pair over a Unix socket (small kernel buffers)
// whose acceptor buffers at most limit bytes nobody asked for, and has: a
// frame sent behind them stays half-written until it is read.
func stalledPair(t *testing.T, limit int) (*Endpoint, *Endpoint) {
	t.Helper()
	a := newEndpoint(t, testConfig(t, 1, "unix"))
	cfg := testConfig(t, 2, "unix")
	cfg.MaxFrame, cfg.MaxBuffered = limit, limit
	b := newEndpoint(t, cfg)
	ctx := testCtx(t)
	if err := a.Connect(ctx, 2, b.Addrs()[0], LinkOptions{}); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if err := b.WaitPeer(ctx, 1); err != nil {
		t.Fatalf("wait peer: %v", err)
	}
	if err := a.Send(ctx, 2, make([]byte, limit), CTRL); err != nil { // b takes it and reads no further
		t.Fatal(err)
	}
	return a, b
}

// waitWriting waits until e's link to peer is writing a frame.
func waitWriting(t *testing.T, e *Endpoint, peer PeerID) {
	t.Helper()
	waitFor(t, "a frame being written", func() bool {
		p := e.lookupPeer(peer)
		if p == nil {
			return false
		}
		l := p.primary()
		if l == nil {
			return false
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.busy
	})
}

// TestSendCancelMidFrame is the rule of spec.md §5 on cancellation: a frame
// is atomic on the wire. A Send cancelled mid-frame cuts the link, its
// error naming the peer and the cancellation, and the peer sees the link
// down; a Send cancelled while its frame waits behind another is withdrawn
// whole, and the link stays up.
func TestSendCancelMidFrame(t *testing.T) {
	const limit = 1 << 20
	t.Run("queued", func(t *testing.T) {
		a, b := stalledPair(t, limit)
		ctx := testCtx(t)
		first := make(chan error, 1)
		go func() { first <- a.Send(ctx, 2, bytes.Repeat([]byte{1}, limit), CTRL) }()
		waitWriting(t, a, 2)
		qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := a.Send(qctx, 2, []byte("withdrawn"), CTRL); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("queued send cancelled: %v, want its context's error", err)
		}
		buf := make([]byte, limit)
		for i := range 2 {
			if k, err := b.Receive(ctx, 1, buf, CTRL); err != nil || k != limit {
				t.Fatalf("message %d: %d bytes, %v", i, k, err)
			}
		}
		if err := <-first; err != nil {
			t.Fatalf("the frame before the withdrawn one: %v", err)
		}
		if err := a.Send(ctx, 2, []byte("after"), CTRL); err != nil {
			t.Fatalf("send after a withdrawn frame: %v", err)
		}
		k, err := b.Receive(ctx, 1, buf, CTRL)
		if err != nil || string(buf[:k]) != "after" {
			t.Fatalf("next message %q, %v: want the one after the withdrawn frame", buf[:k], err)
		}
	})
	t.Run("mid-frame", func(t *testing.T) {
		a, b := stalledPair(t, limit)
		ctx, cancel := context.WithCancel(testCtx(t))
		sent := make(chan error, 1)
		go func() { sent <- a.Send(ctx, 2, make([]byte, limit), CTRL) }()
		waitWriting(t, a, 2)
		time.Sleep(50 * time.Millisecond) // well into the frame
		cancel()
		err := <-sent
		if !errors.Is(err, ErrPeerDown) || !errors.Is(err, context.Canceled) ||
			!strings.Contains(err.Error(), "peer 2") || !strings.Contains(err.Error(), "cancelled mid-frame") {
			t.Fatalf("send cancelled mid-frame: %v, want the link cut, naming peer 2 and the cancellation", err)
		}
		// b's reader, paused at the limit, sees the cut once the filler
		// is read: the rest of the frame never comes.
		buf := make([]byte, limit)
		if k, err := b.Receive(testCtx(t), 1, buf, CTRL); err != nil || k != limit {
			t.Fatalf("the message before the cut frame: %d bytes, %v", k, err)
		}
		if _, err := b.Receive(testCtx(t), 1, buf, CTRL); !errors.Is(err, ErrPeerDown) {
			t.Errorf("receive of the cut frame: %v, want ErrPeerDown", err)
		}
		select {
		case ev := <-b.PeerDown():
			if ev.Peer != 1 || !strings.Contains(ev.Err.Error(), "peer 1 cut the link mid-frame") {
				t.Errorf("link down to peer %d: %v, want peer 1 named as the one that cut it mid-frame", ev.Peer, ev.Err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the peer did not see the link cut")
		}
	})
}
