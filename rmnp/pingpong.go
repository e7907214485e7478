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
	framed    bool // plain, with RMNP's frame layout (header, pad) around each message
	size      int
	dir       string
	a, b      *Endpoint
	ca, cb    net.Conn
	ln        net.Listener
	bufA      []byte
	echoErr   chan error
	stop      context.CancelFunc
	fa        framedConn
	// window, if positive, makes it a stream (NewStream): window messages one
	// way, then a 1-byte acknowledgement back.
	window int
}

// PingPongResult is the outcome of PingPong.Measure.
type PingPongResult struct {
	Transport string
	Plain     bool
	// Framed marks the framed baseline (see NewFramedPingPong); Plain is set too.
	Framed     bool
	Size       int
	RoundTrips int
	Elapsed    time.Duration
	// CPU is the CPU time of the whole process (both ends, every thread, user and
	// system) during Elapsed; zero where the platform does not report it.
	CPU time.Duration
	// Window is the number of messages per acknowledgement of a stream
	// (NewStream; RoundTrips then counts windows), 0 for a ping-pong.
	Window int
}

// messages returns the one-way messages the result covers.
func (r PingPongResult) messages() int {
	if r.Window > 0 {
		return r.RoundTrips * r.Window
	}
	return 2 * r.RoundTrips
}

// OneWayCPU returns the process CPU time per one-way message: on a shared
// machine it moves less with other load than the wall-clock latency.
func (r PingPongResult) OneWayCPU() time.Duration {
	if r.RoundTrips == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.messages())
}

// OneWay returns the one-way latency of a ping-pong (half a round trip), or the
// time per message of a stream.
func (r PingPongResult) OneWay() time.Duration {
	if r.RoundTrips == 0 {
		return 0
	}
	return r.Elapsed / time.Duration(r.messages())
}

// Bandwidth returns the payload bytes per second in one direction: of a
// ping-pong, size over one-way latency; of a stream, what it moved.
func (r PingPongResult) Bandwidth() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.messages()*r.Size) / r.Elapsed.Seconds()
}

// NewPingPong sets up a pair on transport ("tcp" on 127.0.0.1, or "unix") that
// echoes size-byte messages, through RMNP or (plain) a bare net.Conn.
func NewPingPong(ctx context.Context, transport string, plain bool, size int) (*PingPong, error) {
	return newPingPong(ctx, transport, plain, false, size, 0)
}

// StreamWindow is the number of messages a stream sends per acknowledgement,
// as the OSU micro-benchmarks' osu_bw (the usual definition of bandwidth in HPC:
// messages back to back, so that per-message costs overlap with the transfer).
const StreamWindow = 64

// NewStream sets up a pair like NewPingPong whose Run sends window messages of
// size bytes one way, then waits for a 1-byte acknowledgement: Measure then gives
// the streaming bandwidth.
func NewStream(ctx context.Context, transport string, plain bool, size, window int) (*PingPong, error) {
	if window < 1 {
		return nil, fmt.Errorf("%w: stream window %d", ErrConfig, window)
	}
	return newPingPong(ctx, transport, plain, false, size, window)
}

func newPingPong(ctx context.Context, transport string, plain, framed bool, size, window int) (*PingPong, error) {
	if transport != "tcp" && transport != "unix" {
		return nil, fmt.Errorf("%w: transport %q: want tcp or unix", ErrConfig, transport)
	}
	dir, err := os.MkdirTemp("", "rmnp-pingpong-")
	if err != nil {
		return nil, fmt.Errorf("rmnp: ping-pong: %w", err)
	}
	p := &PingPong{transport: transport, plain: plain, framed: framed, size: size, dir: dir,
		bufA: make([]byte, size), echoErr: make(chan error, 1), window: window}
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

// NewFramedPingPong sets up the framed baseline: a plain net.Conn ping-pong whose
// messages are framed as a link frames them (header, and the pad of large payloads),
// written with the payload in one system call and read with it in one readv
// through the same sockIO as a link, but with none of RMNP's bookkeeping. Against
// the plain baseline it isolates the cost of the wire format and the I/O path;
// against RMNP, the cost of the protocol code.
func NewFramedPingPong(ctx context.Context, transport string, size int) (*PingPong, error) {
	return newPingPong(ctx, transport, true, true, size, 0)
}

// reply returns what the far end sends back after its k-th message (counting
// from 1): the message itself in a ping-pong, a 1-byte acknowledgement at the end
// of a stream's window, nothing otherwise.
func (p *PingPong) reply(buf []byte, k int) ([]byte, bool) {
	switch {
	case p.window == 0:
		return buf, true
	case k%p.window == 0:
		return buf[:1], true
	}
	return nil, false
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
	if p.framed {
		p.fa.init(p.ca)
		go p.echoFramed()
		return nil
	}
	go func() {
		buf := make([]byte, p.size)
		for k := 1; ; k++ {
			if _, err := io.ReadFull(p.cb, buf); err != nil {
				p.echoErr <- err
				return
			}
			if r, ok := p.reply(buf, k); ok {
				if _, err := p.cb.Write(r); err != nil {
					p.echoErr <- err
					return
				}
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
		for k := 1; ; k++ {
			n, err := p.b.Receive(ectx, 1, buf, DATA)
			if r, ok := p.reply(buf[:n], k); err == nil && ok {
				err = p.b.Send(ectx, 1, r, DATA)
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

// roundTrip sends one message and reads the echo, or sends a stream's window and
// reads the acknowledgement.
func (p *PingPong) roundTrip(ctx context.Context) error {
	sends, back := 1, p.bufA
	if p.window > 0 {
		sends, back = p.window, p.bufA[:1]
	}
	for range sends {
		if err := p.send(ctx); err != nil {
			return err
		}
	}
	switch {
	case p.framed:
		return p.fa.read(back)
	case p.plain:
		_, err := io.ReadFull(p.ca, back)
		return err
	}
	n, err := p.a.Receive(ctx, 2, p.bufA, DATA)
	if err == nil && n != len(back) {
		err = fmt.Errorf("reply of %d bytes, want %d", n, len(back))
	}
	return err
}

func (p *PingPong) send(ctx context.Context) error {
	switch {
	case p.framed:
		return p.fa.write(p.bufA)
	case p.plain:
		_, err := p.ca.Write(p.bufA)
		return err
	}
	return p.a.Send(ctx, 2, p.bufA, DATA)
}

// Measure runs round trips for about d (at least minTrips) after a short warm-up.
func (p *PingPong) Measure(ctx context.Context, d time.Duration, minTrips int) (PingPongResult, error) {
	r := PingPongResult{Transport: p.transport, Plain: p.plain, Framed: p.framed, Size: p.size, Window: p.window}
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
	res, err := comparePingPong(ctx, transport, size, 0, rounds, d, minTrips, false)
	if err != nil {
		return plain, rmnp, err
	}
	return res[0], res[1], nil
}

// CompareFramedPingPong is ComparePingPong with the framed baseline
// (NewFramedPingPong) measured in the same alternation.
func CompareFramedPingPong(ctx context.Context, transport string, size, rounds int, d time.Duration, minTrips int) (plain, framed, rmnp PingPongResult, err error) {
	res, err := comparePingPong(ctx, transport, size, 0, rounds, d, minTrips, true)
	if err != nil {
		return plain, framed, rmnp, err
	}
	return res[0], res[2], res[1], nil
}

// CompareStream is CompareFramedPingPong for streams of window messages per
// acknowledgement (NewStream): it measures bandwidth as osu_bw does.
func CompareStream(ctx context.Context, transport string, size, window, rounds int, d time.Duration, minTrips int) (plain, framed, rmnp PingPongResult, err error) {
	if window < 1 {
		return plain, framed, rmnp, fmt.Errorf("%w: stream window %d", ErrConfig, window)
	}
	res, err := comparePingPong(ctx, transport, size, window, rounds, d, minTrips, true)
	if err != nil {
		return plain, framed, rmnp, err
	}
	return res[0], res[2], res[1], nil
}

// comparePingPong returns the best rounds of plain, RMNP and, if framed, the
// framed baseline, in that order.
func comparePingPong(ctx context.Context, transport string, size, window, rounds int, d time.Duration, minTrips int, framed bool) ([]PingPongResult, error) {
	kinds := [][2]bool{{true, false}, {false, false}} // {plain, framed}
	if framed {
		kinds = append(kinds, [2]bool{true, true})
	}
	pairs := make([]*PingPong, len(kinds))
	for i, k := range kinds {
		p, err := newPingPong(ctx, transport, k[0], k[1], size, window)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		pairs[i] = p
	}
	best := make([]PingPongResult, len(pairs))
	better := func(a, b PingPongResult) bool {
		return b.RoundTrips == 0 || a.Elapsed*time.Duration(b.RoundTrips) < b.Elapsed*time.Duration(a.RoundTrips)
	}
	for range rounds {
		for i, p := range pairs {
			r, err := p.Measure(ctx, d, minTrips)
			if err != nil {
				return nil, err
			}
			if better(r, best[i]) {
				best[i] = r
			}
		}
	}
	return best, nil
}
