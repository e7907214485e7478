package rmnp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// recorder records what a handshake writes, to replay it later.
type recorder struct {
	net.Conn
	wrote [][]byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = append(r.wrote, bytes.Clone(p))
	return r.Conn.Write(p)
}

func TestAuthenticationFailures(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		ctx := testCtx(t)
		cfg := testConfig(t, 2, tr)
		logs := captureLog(&cfg)
		b := newEndpoint(t, cfg)
		addr := b.Addrs()[0]
		network, address, _ := ParseAddr(addr)

		cases := []struct {
			name string
			cfg  func(c *Config)
			to   PeerID
			want error
		}{
			{"wrong secret", func(c *Config) { c.Secret = []byte("another secret, 16+ bytes") }, 2, ErrAuth},
			{"wrong run", func(c *Config) { c.RunID[0] ^= 1 }, 2, ErrAuth},
			{"wrong peer id", func(c *Config) {}, 7, ErrAuth},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				c := testConfig(t, 1, tr)
				tc.cfg(&c)
				a := newEndpoint(t, c)
				err := a.Connect(ctx, tc.to, addr, LinkOptions{})
				if !errors.Is(err, tc.want) {
					t.Fatalf("Connect = %v, want %v", err, tc.want)
				}
				if len(a.Peers()) != 0 {
					t.Fatalf("link up after %s", tc.name)
				}
			})
		}

		t.Run("replayed handshake", func(t *testing.T) {
			c, err := net.Dial(network, address)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{Conn: c}
			good := testConfig(t, 5, tr)
			if _, err := DialHandshake(rec, &good, 2, LinkOptions{}); err != nil {
				t.Fatal(err)
			}
			c.Close()
			c2, err := net.Dial(network, address)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			c2.SetDeadline(time.Now().Add(10 * time.Second))
			c2.Write(rec.wrote[0]) // HELLO
			var ab [AcceptSize]byte
			if _, err := io.ReadFull(c2, ab[:]); err != nil {
				t.Fatal(err)
			}
			c2.Write(rec.wrote[1]) // AUTH computed for the old nonce
			var done [DoneSize]byte
			if _, err := io.ReadFull(c2, done[:]); err != nil || done[4] != statusMAC {
				t.Fatalf("replay answered %v %v, want status bad mac", done, err)
			}
			if _, err := c2.Read(make([]byte, 1)); err == nil {
				t.Fatal("connection still open after a replay")
			}
		})

		t.Run("garbage and wrong version", func(t *testing.T) {
			for _, junk := range [][]byte{
				bytes.Repeat([]byte{0xff}, HelloSize),
				append([]byte("RMNP\x00"), make([]byte, HelloSize-5)...), // below minVersion
				[]byte("GET / HTTP/1.1\r\n\r\n"),
			} {
				c, err := net.Dial(network, address)
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				c.Write(junk)
				if len(junk) == HelloSize {
					// The acceptor answers at most one ACCEPT and closes.
					io.Copy(io.Discard, c)
				}
				c.Close()
			}
		})

		t.Run("oversize frame after handshake", func(t *testing.T) {
			c := rawDial(t, addr, 9, 2)
			var h Header
			h.Encode(TypeMsg, WireDATA, uint32(DefaultMaxFrame+1), uint32(DefaultMaxFrame+1), 1)
			c.Write(h[:])
			ev := <-b.PeerDown()
			for ev.Peer == 5 { // the recorded handshake's link, closed above
				ev = <-b.PeerDown()
			}
			if ev.Peer != 9 || !errors.Is(ev.Err, ErrFrame) {
				t.Fatalf("event %+v, want peer 9 ErrFrame", ev)
			}
		})

		// The endpoint keeps serving honest peers.
		a := newEndpoint(t, testConfig(t, 1, tr))
		if err := a.Connect(ctx, 2, addr, LinkOptions{}); err != nil {
			t.Fatalf("honest peer after attacks: %v", err)
		}
		if err := a.Send(ctx, 2, []byte("ok"), CTRL); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		if k, err := b.Receive(ctx, 1, buf, CTRL); err != nil || string(buf[:k]) != "ok" {
			t.Fatalf("honest message: %q %v", buf[:k], err)
		}
		log := logs.String()
		for _, want := range []string{"another run", "bad mac", "peer 7", "unsupported protocol version", "bad magic", "oversize"} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		}
		if tr == "tcp" && !strings.Contains(log, "remote=tcp://127.0.0.1:") {
			t.Errorf("log does not name the peer address:\n%s", log)
		}
		if strings.Contains(log, string(testSecret)) {
			t.Error("secret in the log")
		}
	})
}

func TestPeerDisappearsMidMessage(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		for _, posted := range []bool{false, true} {
			name := map[bool]string{false: "buffered", true: "posted"}[posted]
			t.Run(name, func(t *testing.T) {
				checkGoroutines(t)
				ctx := testCtx(t)
				b := newEndpoint(t, testConfig(t, 2, tr))
				c := rawDial(t, b.Addrs()[0], 1, 2)
				waitFor(t, "link", func() bool { return len(b.Peers()) == 1 })
				errc := make(chan error, 1)
				if posted {
					go func() {
						_, err := b.Receive(ctx, 1, make([]byte, 1000), DATA)
						errc <- err
					}()
					waitFor(t, "posted receive", func() bool {
						p := b.peerFor(1)
						p.mu.Lock()
						defer p.mu.Unlock()
						return p.in[1].posted != nil
					})
				}
				var h Header
				h.Encode(TypeMsg, WireDATA, 1000, 1000, 1)
				c.Write(h[:])
				c.Write(make([]byte, 10))
				c.Close()
				ev := <-b.PeerDown()
				if ev.Peer != 1 || ev.LinksLeft != 0 || !errors.Is(ev.Err, io.ErrUnexpectedEOF) {
					t.Fatalf("event %+v", ev)
				}
				if !posted {
					go func() {
						_, err := b.Receive(ctx, 1, make([]byte, 1000), DATA)
						errc <- err
					}()
				}
				if err := <-errc; !errors.Is(err, ErrPeerDown) {
					t.Fatalf("receive: %v, want ErrPeerDown", err)
				}
			})
		}
	})
}

func TestHeartbeatDetectsSilentPeer(t *testing.T) {
	checkGoroutines(t)
	cfg := testConfig(t, 2, "tcp")
	cfg.HeartbeatInterval = 20 * time.Millisecond
	b := newEndpoint(t, cfg)
	rawDial(t, b.Addrs()[0], 1, 2) // never sends a frame
	select {
	case ev := <-b.PeerDown():
		if ev.Peer != 1 || !strings.Contains(ev.Err.Error(), "heartbeat") {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("silent peer not detected")
	}
	// An idle pair with heartbeats keeps exchanging PINGs (and so stays up).
	acfg, hcfg := testConfig(t, 3, "tcp"), testConfig(t, 4, "tcp")
	acfg.HeartbeatInterval = 100 * time.Millisecond
	hcfg.HeartbeatInterval = 100 * time.Millisecond
	a, h := newEndpoint(t, acfg), newEndpoint(t, hcfg)
	if err := a.Connect(context.Background(), 4, h.Addrs()[0], LinkOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pings", func() bool {
		s := linkStats(t, a)
		return s.BytesReceived >= 2*HeaderSize && s.BytesSent >= 2*HeaderSize && s.MessagesSent == 0
	})
}

func TestCancelledReceive(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Network: tr})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		if _, err := b.Receive(ctx, 1, make([]byte, 8), DATA); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("receive: %v", err)
		}
		// The link survives a cancelled receive.
		if err := a.Send(testCtx(t), 2, []byte("after"), DATA); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		if k, err := b.Receive(testCtx(t), 1, buf, DATA); err != nil || string(buf[:k]) != "after" {
			t.Fatalf("%q %v", buf[:k], err)
		}
	})
}

// TestSetRunID: an endpoint moved to another run id (an engine's next
// attempt) refuses a dialer of the old id with ErrOtherRun and accepts
// one of the new id, and the links already up stay up.
func TestSetRunID(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		ctx := testCtx(t)
		b := newEndpoint(t, testConfig(t, 2, tr))
		addr := b.Addrs()[0]
		old := newEndpoint(t, testConfig(t, 1, tr))
		if err := old.Connect(ctx, 2, addr, LinkOptions{}); err != nil {
			t.Fatal(err)
		}
		next := testConfig(t, 3, tr)
		next.RunID[15] ^= 7
		b.SetRunID(next.RunID)
		late := newEndpoint(t, testConfig(t, 4, tr))
		if err := late.Connect(ctx, 2, addr, LinkOptions{}); !errors.Is(err, ErrOtherRun) || !errors.Is(err, ErrAuth) {
			t.Fatalf("a dialer of the old run: %v, want ErrOtherRun (an ErrAuth)", err)
		}
		if err := newEndpoint(t, next).Connect(ctx, 2, addr, LinkOptions{}); err != nil {
			t.Fatalf("a dialer of the new run: %v", err)
		}
		if err := old.Send(ctx, 2, []byte("still up"), CTRL); err != nil {
			t.Fatalf("the link up before: %v", err)
		}
	})
}
