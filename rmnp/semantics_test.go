package rmnp

import (
	"bytes"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestSyncCtrlAndDataInOrder(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr})
		ctx := testCtx(t)
		const n = 300
		errc := make(chan error, 1)
		go func() {
			for i := 0; i < n; i++ {
				f := DATA
				if i%3 == 0 {
					f = CTRL
				}
				if err := a.Send(ctx, 2, msgOf(i), f); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		buf := make([]byte, 64)
		for i := 0; i < n; i++ {
			f := DATA
			if i%3 == 0 {
				f = CTRL
			}
			k, err := b.Receive(ctx, 1, buf, f)
			if err != nil || !bytes.Equal(buf[:k], msgOf(i)) {
				t.Fatalf("message %d (%v): got %q, %v", i, f, buf[:k], err)
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		ls := linkStats(t, b)
		if ls.MessagesReceived != n || ls.Replaced != 0 || ls.Mode != Sync || ls.Network != tr {
			t.Fatalf("acceptor stats: %+v", ls)
		}
		// The 300 messages above may all have been buffered before each
		// Receive (nothing blocked). So post a Receive first and send only
		// after it has had time to block, retrying with longer pauses so a
		// slow scheduler cannot make this check flaky.
		for try := 1; ls.BlockedReceive <= 0 && try <= 8; try++ {
			done := make(chan error, 1)
			go func() {
				_, err := b.Receive(ctx, 1, buf, CTRL)
				done <- err
			}()
			time.Sleep(time.Duration(try) * 10 * time.Millisecond)
			if err := a.Send(ctx, 2, msgOf(n+try), CTRL); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			ls = linkStats(t, b)
		}
		if ls.BlockedReceive <= 0 {
			t.Fatalf("BlockedReceive not counted: %+v", ls)
		}
	})
}

// TestAsyncSkipWhileInFlight holds the link's writer busy (a frame "in flight") and
// checks the AIAC skip rule: later sends replace the queued one.
func TestAsyncSkipWhileInFlight(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Async, Network: tr})
		ctx := testCtx(t)
		l := a.peers[2].primary()
		l.mu.Lock()
		l.busy = true
		l.mu.Unlock()
		const n = 10
		send := func(from, to int) {
			for i := from; i < to; i++ {
				if err := a.Send(ctx, 2, msgOf(i), DATA); err != nil {
					t.Fatal(err)
				}
			}
		}
		send(0, n/2)
		// A CTRL queued behind the DATA fences it: later DATA queue after the CTRL.
		ctrl := make(chan error, 1)
		go func() { ctrl <- a.Send(ctx, 2, []byte("fence"), CTRL) }()
		waitFor(t, "CTRL queued", func() bool {
			l.mu.Lock()
			defer l.mu.Unlock()
			return len(l.q) == 2
		})
		send(n/2, n)
		l.mu.Lock()
		l.busy = false
		l.mu.Unlock()
		Signal(l.wake)
		if err := <-ctrl; err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		if k, err := b.Receive(ctx, 1, buf, CTRL); err != nil || string(buf[:k]) != "fence" {
			t.Fatalf("CTRL: %q %v", buf[:k], err)
		}
		waitFor(t, "3 frames", func() bool { return linkStats(t, b).MessagesReceived == 3 })
		// The receiver does not merge updates across the CTRL either.
		for _, want := range []int{n/2 - 1, n - 1} {
			k, err := b.Receive(ctx, 1, buf, DATA)
			if err != nil || !bytes.Equal(buf[:k], msgOf(want)) {
				t.Fatalf("got %q, %v; want %q", buf[:k], err, msgOf(want))
			}
		}
		if s := linkStats(t, a); s.Skipped != n-2 || s.MessagesSent != 3 {
			t.Fatalf("sender stats: skipped %d sent %d, want %d and 3", s.Skipped, s.MessagesSent, n-2)
		}
	})
}

func TestAsyncLatestValueAtReceiver(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Async, Network: tr})
		ctx := testCtx(t)
		const n = 20
		for i := 0; i < n; i++ {
			if err := a.Send(ctx, 2, msgOf(i), DATA); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "delivery "+strconv.Itoa(i), func() bool {
				return linkStats(t, b).MessagesReceived == uint64(i+1)
			})
		}
		buf := make([]byte, 64)
		k, err := b.Receive(ctx, 1, buf, DATA)
		if err != nil || !bytes.Equal(buf[:k], msgOf(n-1)) {
			t.Fatalf("got %q, %v; want the latest", buf[:k], err)
		}
		if _, err := b.Receive(ctx, 1, buf, DATA|NoWait); !errors.Is(err, ErrNoMessage) {
			t.Fatalf("older updates still buffered: %v", err)
		}
		if s := linkStats(t, b); s.Replaced != n-1 {
			t.Fatalf("replaced %d, want %d", s.Replaced, n-1)
		}
	})
}

// TestAsyncAccounting floods an async link and checks that every send is either
// skipped, replaced or received, and that the last value always arrives.
func TestAsyncAccounting(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Async, Network: tr})
		ctx := testCtx(t)
		const n = 2000
		payload := make([]byte, 4096)
		go func() {
			for i := 0; i < n; i++ {
				copy(payload, strconv.Itoa(i)+";")
				if err := a.Send(ctx, 2, payload, DATA); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		buf := make([]byte, 4096)
		got := 0
		for last := -1; last != n-1; {
			k, err := b.Receive(ctx, 1, buf, DATA)
			if err != nil {
				t.Fatal(err)
			}
			got++
			v, _ := strconv.Atoi(string(bytes.SplitN(buf[:k], []byte(";"), 2)[0]))
			if v <= last {
				t.Fatalf("value %d after %d: latest-value must never go back", v, last)
			}
			last = v
		}
		sa, sb := linkStats(t, a), linkStats(t, b)
		if sa.Skipped+sb.Replaced+uint64(got) != n {
			t.Fatalf("skipped %d + replaced %d + received %d != sent %d", sa.Skipped, sb.Replaced, got, n)
		}
	})
}

// TestCtrlNeverOvertaken interleaves CTRL i and async DATA i and checks that every
// CTRL arrives, in order, and no DATA is visible before the CTRL sent ahead of it.
func TestCtrlNeverOvertaken(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Async, Network: tr})
		ctx := testCtx(t)
		const n = 300
		go func() {
			for i := 0; i < n; i++ {
				if err := a.Send(ctx, 2, msgOf(i), CTRL); err != nil {
					t.Error(err)
					return
				}
				if err := a.Send(ctx, 2, msgOf(i), DATA); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		buf := make([]byte, 64)
		lastCtrl, lastData := -1, -1
		for lastCtrl < n-1 || lastData < n-1 {
			src, f, err := b.Wait(ctx)
			if err != nil || src != 1 {
				t.Fatalf("wait: %d %v %v", src, f, err)
			}
			k, err := b.Receive(ctx, 1, buf, f)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := strconv.Atoi(string(buf[len("message-"):k]))
			switch f {
			case CTRL:
				if v != lastCtrl+1 {
					t.Fatalf("CTRL %d after %d: dropped or reordered", v, lastCtrl)
				}
				lastCtrl = v
			case DATA:
				if v > lastCtrl || v <= lastData {
					t.Fatalf("DATA %d visible with last CTRL %d, last DATA %d", v, lastCtrl, lastData)
				}
				lastData = v
			}
		}
	})
}

func TestWaitSourceAndFlags(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		ctx := testCtx(t)
		hub := newEndpoint(t, testConfig(t, 2, tr))
		var spokes []*Endpoint
		for _, id := range []PeerID{1, 3} {
			s := newEndpoint(t, testConfig(t, id, tr))
			if err := s.Connect(ctx, 2, hub.Addrs()[0], LinkOptions{Network: tr}); err != nil {
				t.Fatal(err)
			}
			spokes = append(spokes, s)
		}
		steps := []struct {
			from *Endpoint
			flag Flags
		}{{spokes[1], DATA}, {spokes[0], CTRL}, {spokes[1], CTRL}}
		for i, s := range steps {
			if err := s.from.Send(ctx, 2, msgOf(i), s.flag); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "arrival", func() bool {
				var got uint64
				for _, l := range hub.Stats().Links {
					got += l.MessagesReceived
				}
				return got == uint64(i+1)
			})
		}
		buf := make([]byte, 64)
		for i, s := range steps {
			for range 2 { // Wait does not consume
				src, f, err := hub.Wait(ctx)
				if err != nil || src != s.from.Self() || f != s.flag {
					t.Fatalf("step %d: Wait = %d %v %v, want %d %v", i, src, f, err, s.from.Self(), s.flag)
				}
			}
			k, err := hub.Receive(ctx, s.from.Self(), buf, s.flag)
			if err != nil || !bytes.Equal(buf[:k], msgOf(i)) {
				t.Fatalf("step %d: receive %q %v", i, buf[:k], err)
			}
		}
	})
}

func TestUnexpectedMessagesBuffered(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		ctx := testCtx(t)
		a := newEndpoint(t, testConfig(t, 1, tr))
		b := newEndpoint(t, testConfig(t, 2, tr))
		// A Receive posted before the link exists completes once it is up.
		early := make(chan string, 1)
		go func() {
			buf := make([]byte, 64)
			k, err := b.Receive(ctx, 1, buf, CTRL)
			if err != nil {
				early <- err.Error()
				return
			}
			early <- string(buf[:k])
		}()
		if err := a.Connect(ctx, 2, b.Addrs()[0], LinkOptions{Network: tr}); err != nil {
			t.Fatal(err)
		}
		if err := a.Send(ctx, 2, []byte("hello"), CTRL); err != nil {
			t.Fatal(err)
		}
		if got := <-early; got != "hello" {
			t.Fatalf("early receive: %q", got)
		}
		const n = 50
		for i := 0; i < n; i++ {
			if err := a.Send(ctx, 2, msgOf(i), DATA); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, "buffering", func() bool { return linkStats(t, b).MessagesReceived == n+1 })
		small := make([]byte, 3)
		if k, err := b.Receive(ctx, 1, small, DATA); !errors.Is(err, ErrShortBuffer) || k != len(msgOf(0)) {
			t.Fatalf("short buffer: %d %v", k, err)
		}
		buf := make([]byte, 64)
		for i := 0; i < n; i++ {
			k, err := b.Receive(ctx, 1, buf, DATA|NoWait)
			if err != nil || !bytes.Equal(buf[:k], msgOf(i)) {
				t.Fatalf("buffered %d: %q %v", i, buf[:k], err)
			}
		}
	})
}

func TestFloat64sAndCompression(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: "wan", Compress: true})
		ctx := testCtx(t)
		v := make([]float64, 10000)
		for i := range v {
			v[i] = float64(i%7) * 0.25
		}
		if err := a.SendFloat64s(ctx, 2, v, DATA); err != nil {
			t.Fatal(err)
		}
		w := make([]float64, len(v)+2)
		w[len(v)], w[len(v)+1] = -1, -1
		n, err := b.ReceiveFloat64s(ctx, 1, w, DATA)
		if err != nil || n != len(v) {
			t.Fatalf("receive: %d %v", n, err)
		}
		for i := range v {
			if w[i] != v[i] {
				t.Fatalf("w[%d] = %v, want %v", i, w[i], v[i])
			}
		}
		if w[len(v)] != -1 || w[len(v)+1] != -1 {
			t.Fatal("wrote past the message")
		}
		sa, sb := linkStats(t, a), linkStats(t, b)
		if !sa.Compress || !sb.Compress || sa.CompressionRatio() < 2 {
			t.Fatalf("compression not negotiated or ineffective: %+v", sa)
		}
		if sb.RawDataReceived != uint64(8*len(v)) || sb.WireDataReceived != sa.WireDataSent {
			t.Fatalf("receiver counters: %+v", sb.Counters)
		}
	})
}

func TestCloseFailsPendingOperations(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Network: tr})
		ctx := testCtx(t)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, errs[0] = b.Receive(ctx, 1, make([]byte, 8), DATA)
		}()
		go func() {
			defer wg.Done()
			_, _, errs[1] = b.Wait(ctx)
		}()
		time.Sleep(20 * time.Millisecond) // let them block (not required for correctness)
		b.Close()
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("op %d: %v, want ErrClosed", i, err)
			}
		}
		ev := <-a.PeerDown()
		if ev.Peer != 2 || !errors.Is(ev.Err, ErrPeerClosed) || ev.LinksLeft != 0 {
			t.Fatalf("peer down event: %+v", ev)
		}
		if err := a.Send(ctx, 2, []byte("x"), CTRL); !errors.Is(err, ErrUnknownPeer) {
			t.Fatalf("send after peer closed: %v", err)
		}
		if _, err := a.Receive(ctx, 2, make([]byte, 8), CTRL); !errors.Is(err, ErrPeerDown) {
			t.Fatalf("receive after peer closed: %v", err)
		}
	})
}

// TestHeardAt checks that HeardAt tells when a peer's last CTRL message
// arrived, before it is received, and that DATA does not count.
func TestHeardAt(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		ctx := testCtx(t)
		a, b := pair(t, tr, LinkOptions{Network: tr})
		if at := b.HeardAt(1); !at.IsZero() {
			t.Fatalf("HeardAt before any message = %v, want zero", at)
		}
		if at := b.HeardAt(9); !at.IsZero() {
			t.Fatalf("HeardAt of an unknown peer = %v, want zero", at)
		}
		if err := a.Send(ctx, 2, msgOf(1), DATA); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if at := b.HeardAt(1); !at.IsZero() {
			t.Fatalf("HeardAt after DATA only = %v, want zero", at)
		}
		before := time.Now()
		if err := a.Send(ctx, 2, msgOf(2), CTRL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the CTRL message", func() bool { return !b.HeardAt(1).IsZero() })
		if at := b.HeardAt(1); at.Before(before) || at.After(time.Now()) {
			t.Fatalf("HeardAt = %v, want between %v and now", at, before)
		}
	})
}
