package rmnpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/gridtui/gridtui/internal/rmnpframed"
	"github.com/gridtui/gridtui/rmnp"
)

// Kind is what carries the messages of a pair.
type Kind int

const (
	// Plain is a bare net.Conn: the baseline.
	Plain Kind = iota
	// Framed is a bare net.Conn with RMNP's frame layout (header, pad) around
	// each message, through rmnp's socket I/O but none of its bookkeeping.
	Framed
	// RMNP is a synchronous DATA link between two rmnp endpoints.
	RMNP
)

// Kinds lists every kind, in the order Compare measures them.
var Kinds = []Kind{Plain, RMNP, Framed}

// String returns "plain", "framed" or "rmnp".
func (k Kind) String() string {
	switch k {
	case Plain:
		return "plain"
	case Framed:
		return "framed"
	}
	return "rmnp"
}

// Pair measures round trips of one message size between two ends in this process.
type Pair struct {
	kind      Kind
	transport string
	size      int
	dir       string
	a, b      *rmnp.Endpoint
	ca, cb    net.Conn
	ln        net.Listener
	bufA      []byte
	echoErr   chan error
	stop      context.CancelFunc
	fa        rmnpframed.Conn
	// window, if positive, makes it a stream: window messages one way, then a
	// 1-byte acknowledgement back.
	window int
}

// StreamWindow is the number of messages a stream sends per acknowledgement,
// as the OSU micro-benchmarks' osu_bw (the usual definition of bandwidth in HPC:
// messages back to back, so that per-message costs overlap with the transfer).
const StreamWindow = 64

// New sets up a pair of kind on transport ("tcp" on 127.0.0.1, or "unix") that
// echoes size-byte messages (window 0), or a stream whose round trip is window
// messages one way and a 1-byte acknowledgement back.
func New(ctx context.Context, kind Kind, transport string, size, window int) (*Pair, error) {
	if transport != "tcp" && transport != "unix" {
		return nil, fmt.Errorf("rmnpbench: transport %q: want tcp or unix", transport)
	}
	if size < 1 || window < 0 {
		return nil, fmt.Errorf("rmnpbench: size %d, window %d: want a positive size and a window of at least 0", size, window)
	}
	dir, err := os.MkdirTemp("", "rmnp-pingpong-")
	if err != nil {
		return nil, fmt.Errorf("rmnpbench: %w", err)
	}
	p := &Pair{kind: kind, transport: transport, size: size, dir: dir,
		bufA: make([]byte, size), echoErr: make(chan error, 1), window: window}
	if kind == RMNP {
		err = p.setupRMNP(ctx)
	} else {
		err = p.setupPlain(ctx)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Buffer returns the buffer the near end sends from and receives the echo into.
func (p *Pair) Buffer() []byte { return p.bufA }

// RMNPStats returns the far end's link statistics of an RMNP pair.
func (p *Pair) RMNPStats() (rmnp.LinkStats, bool) {
	if p.b == nil {
		return rmnp.LinkStats{}, false
	}
	for _, l := range p.b.Stats().Links {
		return l, true
	}
	return rmnp.LinkStats{}, false
}

func (p *Pair) listenAddr(name string) (network, address string) {
	if p.transport == "unix" {
		return "unix", filepath.Join(p.dir, name+".sock")
	}
	return "tcp", "127.0.0.1:0"
}

// reply returns what the far end sends back after its k-th message (counting
// from 1): the message itself in a ping-pong, a 1-byte acknowledgement at the end
// of a stream's window, nothing otherwise.
func (p *Pair) reply(buf []byte, k int) ([]byte, bool) {
	switch {
	case p.window == 0:
		return buf, true
	case k%p.window == 0:
		return buf[:1], true
	}
	return nil, false
}

func (p *Pair) setupPlain(ctx context.Context) error {
	network, address := p.listenAddr("plain")
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, network, address)
	if err != nil {
		return fmt.Errorf("rmnpbench: listen: %w", err)
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
		return fmt.Errorf("rmnpbench: dial: %w", err)
	}
	if p.cb = <-accepted; p.cb == nil {
		return errors.New("rmnpbench: accept failed")
	}
	if p.kind == Framed {
		p.fa = rmnpframed.New(p.ca)
		fb := rmnpframed.New(p.cb)
		go p.echo(fb.Read, fb.Write)
		return nil
	}
	read := func(b []byte) error { _, err := io.ReadFull(p.cb, b); return err }
	write := func(b []byte) error { _, err := p.cb.Write(b); return err }
	go p.echo(read, write)
	return nil
}

// echo is the far end of a plain or framed pair.
func (p *Pair) echo(read, write func([]byte) error) {
	buf := make([]byte, p.size)
	for k := 1; ; k++ {
		err := read(buf)
		if r, ok := p.reply(buf, k); err == nil && ok {
			err = write(r)
		}
		if err != nil {
			p.echoErr <- err
			return
		}
	}
}

func (p *Pair) setupRMNP(ctx context.Context) error {
	cfg := rmnp.DefaultConfig()
	cfg.Secret = []byte("ping-pong benchmark secret")
	cfg.Self = 1
	var err error
	if p.a, err = rmnp.Listen(ctx, cfg); err != nil {
		return err
	}
	cfg.Self = 2
	network, address := p.listenAddr("b")
	cfg.Listen = []string{network + "://" + address}
	if p.b, err = rmnp.Listen(ctx, cfg); err != nil {
		return err
	}
	if err := p.a.Connect(ctx, 2, p.b.Addrs()[0], rmnp.LinkOptions{Mode: rmnp.Sync, Network: p.transport}); err != nil {
		return err
	}
	if err := p.b.WaitPeer(ctx, 1); err != nil {
		return err
	}
	ectx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go func() {
		buf := make([]byte, p.size)
		for k := 1; ; k++ {
			n, err := p.b.Receive(ectx, 1, buf, rmnp.DATA)
			if r, ok := p.reply(buf[:n], k); err == nil && ok {
				err = p.b.Send(ectx, 1, r, rmnp.DATA)
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
func (p *Pair) Run(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if err := p.roundTrip(ctx); err != nil {
			select {
			case e := <-p.echoErr:
				return fmt.Errorf("rmnpbench: %s %s %d B: %w (echo: %w)", p.kind, p.transport, p.size, err, e)
			default:
				return fmt.Errorf("rmnpbench: %s %s %d B: %w", p.kind, p.transport, p.size, err)
			}
		}
	}
	return nil
}

// roundTrip sends one message and reads the echo, or sends a stream's window and
// reads the acknowledgement.
func (p *Pair) roundTrip(ctx context.Context) error {
	sends, back := 1, p.bufA
	if p.window > 0 {
		sends, back = p.window, p.bufA[:1]
	}
	for range sends {
		if err := p.send(ctx); err != nil {
			return err
		}
	}
	switch p.kind {
	case Framed:
		return p.fa.Read(back)
	case Plain:
		_, err := io.ReadFull(p.ca, back)
		return err
	}
	n, err := p.a.Receive(ctx, 2, p.bufA, rmnp.DATA)
	if err == nil && n != len(back) {
		err = fmt.Errorf("reply of %d bytes, want %d", n, len(back))
	}
	return err
}

func (p *Pair) send(ctx context.Context) error {
	switch p.kind {
	case Framed:
		return p.fa.Write(p.bufA)
	case Plain:
		_, err := p.ca.Write(p.bufA)
		return err
	}
	return p.a.Send(ctx, 2, p.bufA, rmnp.DATA)
}

// Measure runs round trips for about d (at least minTrips) after a short warm-up.
func (p *Pair) Measure(ctx context.Context, d time.Duration, minTrips int) (Result, error) {
	r := Result{Kind: p.kind, Transport: p.transport, Size: p.size, Window: p.window}
	if err := p.Run(ctx, 3); err != nil {
		return r, err
	}
	cpu := processCPU()
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
	r.CPU = processCPU() - cpu
	return r, nil
}

// Close tears the pair down.
func (p *Pair) Close() error {
	if p.stop != nil {
		p.stop()
	}
	for _, c := range []io.Closer{p.ca, p.cb, p.ln} {
		if c != nil {
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
