package rmnp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// scriptMsg is one message of TestSpeculativeReads.
type scriptMsg struct {
	kind Flags
	size int
}

func patterned(i, size int) []byte {
	b := make([]byte, size)
	for j := range b {
		b[j] = byte(i*31 + j*7)
	}
	return b
}

// TestSpeculativeReads sends large messages whose kind and size change (predicted
// right, shorter, longer, other kind) while the receiver reads its link itself, in
// lockstep and in bursts, and checks every byte.
func TestSpeculativeReads(t *testing.T) {
	for _, v := range []uint8{minVersion, ProtoVersion} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testSpeculativeReads(t, v) })
	}
}

func testSpeculativeReads(t *testing.T, version uint8) {
	script := []scriptMsg{
		{DATA, 20000}, {DATA, 20000}, {DATA, 9000},
		// Padded frames predicted by a padded one and by an unpadded one, and
		// the reverse (version 2 pads payloads from padMin up).
		{DATA, padMin}, {DATA, 9000}, {DATA, padMin - 1}, {DATA, 9000}, {DATA, 40},
		{DATA, 30000}, {CTRL, 12000},
		{DATA, 30000}, {DATA, 100}, {DATA, 50000}, {CTRL, 8}, {DATA, 50000}, {DATA, 50000},
		{CTRL, 16384}, {CTRL, 16384}, {DATA, 0}, {DATA, 16384},
	}
	each(t, func(t *testing.T, tr string) {
		for _, burst := range []bool{false, true} {
			name := map[bool]string{false: "lockstep", true: "burst"}[burst]
			t.Run(name, func(t *testing.T) {
				checkGoroutines(t)
				a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr, maxVersion: version})
				ctx := testCtx(t)
				buf := make([]byte, 64<<10)
				play := func() {
					sent := make(chan struct{})
					go func() {
						defer close(sent)
						ack := make([]byte, 1)
						for i, m := range script {
							if err := a.Send(ctx, 2, patterned(i, m.size), m.kind); err != nil {
								t.Error(err)
								return
							}
							if !burst {
								if _, err := a.Receive(ctx, 2, ack, CTRL); err != nil {
									t.Error(err)
									return
								}
							}
						}
					}()
					for i, m := range script {
						n, err := b.Receive(ctx, 1, buf, m.kind)
						if err != nil || !bytes.Equal(buf[:n], patterned(i, m.size)) {
							t.Fatalf("message %d (%v, %d B): got %d B, %v", i, m.kind, m.size, n, err)
						}
						if !burst {
							if err := b.Send(ctx, 1, []byte{1}, CTRL); err != nil {
								t.Fatal(err)
							}
						}
					}
					<-sent
				}
				play()
				// A speculative read needs the Receive posted before its frame
				// arrives, which lockstep makes likely but a loaded machine (CI's
				// -race run beside other packages) can deny a whole script: play
				// it again a few times before calling speculation broken.
				hits := func() uint64 { return b.peers[1].links[0].c.specHits.Load() }
				for again := 0; !burst && hits() == 0 && again < 4; again++ {
					play()
				}
				if !burst && hits() == 0 {
					t.Error("no speculative read in lockstep, in five plays of the script")
				}
			})
		}
	})
}

func TestUnread(t *testing.T) {
	fr := NewFrameReader(bytes.NewReader([]byte("tail")), 1024)
	fr.buf = fr.buf[:4]
	copy(fr.buf, "xxcd")
	fr.r, fr.w = 2, 4
	fr.unread([]byte("ab"))         // fits
	fr.unread([]byte("0123456789")) // grows
	got := make([]byte, 18)
	if err := fr.ReadFull(got, true); err != nil || string(got) != "0123456789abcdtail" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestSpeculativeReadCancelled cancels a Receive blocked in a speculative read (the
// prediction is armed by a first large message); the link must survive.
func TestSpeculativeReadCancelled(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr})
		ctx := testCtx(t)
		big := patterned(1, 40000)
		buf := make([]byte, 64<<10)
		for i := 0; i < 2; i++ {
			if err := a.Send(ctx, 2, big, DATA); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Receive(ctx, 1, buf, DATA); err != nil {
				t.Fatal(err)
			}
		}
		short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		if _, err := b.Receive(short, 1, buf, DATA); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("receive: %v", err)
		}
		if err := a.Send(ctx, 2, big, DATA); err != nil {
			t.Fatal(err)
		}
		n, err := b.Receive(ctx, 1, buf, DATA)
		if err != nil || !bytes.Equal(buf[:n], big) {
			t.Fatalf("after cancel: %d %v", n, err)
		}
		if len(b.Peers()) != 1 {
			t.Fatal("link lost")
		}
	})
}
