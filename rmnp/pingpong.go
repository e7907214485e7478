package rmnp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PingPong measures round trips of one message size between two endpoints of this
// process over loopback TCP or a Unix socket, either through RMNP (a synchronous
// DATA link) or over a plain net.Conn as the baseline. It backs the rmnp benchmarks
// and `gridtui bench rmnp`.
type PingPong struct {
	transport string
	plain     bool
	size      int
	dir       string
	a, b      *Endpoint
	ca, cb    net.Conn
	ln        net.Listener
	bufA      []byte
	echoErr   chan error
	stop      context.CancelFunc
}

// PingPongResult is the outcome of PingPong.Measure.
type PingPongResult struct {
	Transport  string
	Plain      bool
	Size       int
	RoundTrips int
	Elapsed    time.Duration
}

// OneWay returns the one-way latency: half a round trip.
func (r PingPongResult) OneWay() time.Duration {
	if r.RoundTrips == 0 {
		return 0
	}
	return r.Elapsed / time.Duration(2*r.RoundTrips)
}

// Bandwidth returns the payload bytes per second in one direction.
func (r PingPongResult) Bandwidth() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(2*r.RoundTrips*r.Size) / r.Elapsed.Seconds()
}

// NewPingPong sets up a pair on transport ("tcp" on 127.0.0.1, or "unix") that
// echoes size-byte messages, through RMNP or (plain) a bare net.Conn.
func NewPingPong(ctx context.Context, transport string, plain bool, size int) (*PingPong, error) {
	if transport != "tcp" && transport != "unix" {
		return nil, fmt.Errorf("%w: transport %q: want tcp or unix", ErrConfig, transport)
	}
	dir, err := os.MkdirTemp("", "rmnp-pingpong-")
	if err != nil {
		return nil, fmt.Errorf("rmnp: ping-pong: %w", err)
	}
	p := &PingPong{transport: transport, plain: plain, size: size, dir: dir,
		bufA: make([]byte, size), echoErr: make(chan error, 1)}
	if plain {
		err = p.setupPlain(ctx)
	} else {
		err = p.setupRMNP(ctx)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *PingPong) addr(name string) string {
	if p.transport == "unix" {
		return "unix://" + filepath.Join(p.dir, name+".sock")
	}
	return "tcp://127.0.0.1:0"
}

func (p *PingPong) setupPlain(ctx context.Context) error {
	network, address, _ := parseAddr(p.addr("plain"))
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, network, address)
	if err != nil {
		return fmt.Errorf("rmnp: ping-pong listen: %w", err)
	}
	p.ln = ln
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	var d net.Dialer
	if p.ca, err = d.DialContext(ctx, network, ln.Addr().String()); err != nil {
		return fmt.Errorf("rmnp: ping-pong dial: %w", err)
	}
	if p.cb = <-accepted; p.cb == nil {
		return errors.New("rmnp: ping-pong: accept failed")
	}
	go func() {
		buf := make([]byte, p.size)
		for {
			if _, err := io.ReadFull(p.cb, buf); err != nil {
				p.echoErr <- err
				return
			}
			if _, err := p.cb.Write(buf); err != nil {
				p.echoErr <- err
				return
			}
		}
	}()
	return nil
}

func (p *PingPong) setupRMNP(ctx context.Context) error {
	cfg := DefaultConfig()
	cfg.Secret = []byte("ping-pong benchmark secret")
	cfg.Self = 1
	var err error
	if p.a, err = Listen(ctx, cfg); err != nil {
		return err
	}
	cfg.Self = 2
	cfg.Listen = []string{p.addr("b")}
	if p.b, err = Listen(ctx, cfg); err != nil {
		return err
	}
	if err := p.a.Connect(ctx, 2, p.b.Addrs()[0], LinkOptions{Mode: Sync, Network: p.transport}); err != nil {
		return err
	}
	if err := p.b.WaitPeer(ctx, 1); err != nil {
		return err
	}
	ectx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go func() {
		buf := make([]byte, p.size)
		for {
			n, err := p.b.Receive(ectx, 1, buf, DATA)
			if err == nil {
				err = p.b.Send(ectx, 1, buf[:n], DATA)
			}
			if err != nil {
				p.echoErr <- err
				return
			}
		}
	}()
	return nil
}

// Run performs n round trips.
func (p *PingPong) Run(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if err := p.roundTrip(ctx); err != nil {
			select {
			case e := <-p.echoErr:
				return fmt.Errorf("rmnp: ping-pong: %w (echo: %w)", err, e)
			default:
				return fmt.Errorf("rmnp: ping-pong: %w", err)
			}
		}
	}
	return nil
}

func (p *PingPong) roundTrip(ctx context.Context) error {
	if p.plain {
		if _, err := p.ca.Write(p.bufA); err != nil {
			return err
		}
		_, err := io.ReadFull(p.ca, p.bufA)
		return err
	}
	if err := p.a.Send(ctx, 2, p.bufA, DATA); err != nil {
		return err
	}
	n, err := p.a.Receive(ctx, 2, p.bufA, DATA)
	if err == nil && n != p.size {
		err = fmt.Errorf("echo of %d bytes, sent %d", n, p.size)
	}
	return err
}

// Measure runs round trips for about d (at least minTrips) after a short warm-up.
func (p *PingPong) Measure(ctx context.Context, d time.Duration, minTrips int) (PingPongResult, error) {
	r := PingPongResult{Transport: p.transport, Plain: p.plain, Size: p.size}
	if err := p.Run(ctx, 3); err != nil {
		return r, err
	}
	start := time.Now()
	batch := 1
	for r.RoundTrips < minTrips || time.Since(start) < d {
		if err := p.Run(ctx, batch); err != nil {
			return r, err
		}
		r.RoundTrips += batch
		if batch < 64 {
			batch *= 2
		}
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// Close tears the pair down.
func (p *PingPong) Close() error {
	if p.stop != nil {
		p.stop()
	}
	for _, c := range []io.Closer{p.ca, p.cb, p.ln} {
		if c != nil && c != io.Closer(nil) {
			c.Close()
		}
	}
	if p.a != nil {
		p.a.Close()
	}
	if p.b != nil {
		p.b.Close()
	}
	return os.RemoveAll(p.dir)
}

// ComparePingPong measures the plain baseline and RMNP alternately, rounds times
// each for about d per round (at least minTrips round trips), and returns the best
// round of each: on a shared machine the fastest round is the one least disturbed
// by other load, and alternating exposes both to the same conditions.
func ComparePingPong(ctx context.Context, transport string, size, rounds int, d time.Duration, minTrips int) (plain, rmnp PingPongResult, err error) {
	pp, err := NewPingPong(ctx, transport, true, size)
	if err != nil {
		return plain, rmnp, err
	}
	defer pp.Close()
	pr, err := NewPingPong(ctx, transport, false, size)
	if err != nil {
		return plain, rmnp, err
	}
	defer pr.Close()
	better := func(a, b PingPongResult) bool {
		return b.RoundTrips == 0 || a.Elapsed*time.Duration(b.RoundTrips) < b.Elapsed*time.Duration(a.RoundTrips)
	}
	for i := 0; i < rounds; i++ {
		for _, p := range []*PingPong{pp, pr} {
			r, err := p.Measure(ctx, d, minTrips)
			if err != nil {
				return plain, rmnp, err
			}
			if p.plain && better(r, plain) {
				plain = r
			} else if !p.plain && better(r, rmnp) {
				rmnp = r
			}
		}
	}
	return plain, rmnp, nil
}
