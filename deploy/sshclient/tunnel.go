package sshclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// Tunnel carries TCP connections between two hosts that cannot reach each
// other through the console's own SSH connections to both: a connection to
// Listen on host From's loopback (an SSH remote forward) is relayed to Addr
// as host To sees it (an SSH direct-tcpip channel). It is the zero-setup,
// slower path between two sites' gateways when no gateway port is open.
type Tunnel struct {
	// From and To are the hosts' names; Listen is "127.0.0.1:port" on From,
	// Addr the destination on To's side.
	From, To, Listen, Addr string

	ln   net.Listener
	to   *Conn
	wg   sync.WaitGroup
	mu   sync.Mutex
	live map[io.Closer]struct{}
	shut bool
}

// OpenTunnel opens a Tunnel from host from to addr as host to sees it,
// over p's connections (dialled if needed).
func (p *Pool) OpenTunnel(ctx context.Context, from, to inventory.Host, addr string) (*Tunnel, error) {
	cf, err := Connect(ctx, p, from)
	if err != nil {
		return nil, err
	}
	ct, err := Connect(ctx, p, to)
	if err != nil {
		return nil, err
	}
	ln, err := cf.client.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("deploy: tunnel from %s: remote forward refused (AllowTcpForwarding?): %w", from.Name, err)
	}
	t := &Tunnel{From: from.Name, To: to.Name, Listen: ln.Addr().String(), Addr: addr, ln: ln, to: ct, live: map[io.Closer]struct{}{}}
	t.wg.Add(1)
	go t.serve()
	return t, nil
}

// ErrForwardingRefused is wrapped when a host's sshd refuses to open a TCP
// channel at all (AllowTcpForwarding no): DialFrom learnt nothing about the
// destination, and no SSH tunnel can use that host.
var ErrForwardingRefused = errors.New("deploy: TCP forwarding refused")

// DialFrom checks that host from reaches addr: it opens a TCP connection
// to addr as from sees it (an SSH direct-tcpip channel from from's sshd,
// over p's connection) and closes it. The error says why not: the
// destination refused or could not be reached (the sshd's reason), ctx
// ended first (a filtered port), or ErrForwardingRefused.
func (p *Pool) DialFrom(ctx context.Context, from inventory.Host, addr string) error {
	c, err := Connect(ctx, p, from)
	if err != nil {
		return err
	}
	type dialled struct {
		conn net.Conn
		err  error
	}
	ch := make(chan dialled, 1)
	go func() {
		conn, err := c.client.Dial("tcp", addr)
		ch <- dialled{conn, err}
	}()
	select {
	case d := <-ch:
		var oe *ssh.OpenChannelError
		switch {
		case errors.As(d.err, &oe) && oe.Reason == ssh.Prohibited:
			return fmt.Errorf("%w by %s: %w", ErrForwardingRefused, from.Name, d.err)
		case d.err != nil:
			return fmt.Errorf("deploy: %s cannot reach %s: %w", from.Name, addr, d.err)
		}
		d.conn.Close()
		return nil
	case <-ctx.Done():
		go func() {
			if d := <-ch; d.conn != nil {
				d.conn.Close()
			}
		}()
		return fmt.Errorf("deploy: %s cannot reach %s: no answer: %w", from.Name, addr, ctx.Err())
	}
}

// serve relays every connection the remote forward accepts.
func (t *Tunnel) serve() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.relay(c)
		}()
	}
}

// relay opens the direct-tcpip channel for c and copies both ways until
// either side ends.
func (t *Tunnel) relay(c net.Conn) {
	d, err := t.to.client.Dial("tcp", t.Addr)
	if err != nil {
		c.Close()
		return
	}
	if !t.track(c, d) {
		return
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(d, c)
	go cp(c, d)
	<-done
	c.Close()
	d.Close()
	<-done
	t.untrack(c, d)
}

func (t *Tunnel) track(cs ...io.Closer) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.shut {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		t.live[c] = struct{}{}
	}
	return true
}

func (t *Tunnel) untrack(cs ...io.Closer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range cs {
		delete(t.live, c)
	}
}

// Close stops forwarding, closes the relayed connections and waits for
// them.
func (t *Tunnel) Close() error {
	t.mu.Lock()
	t.shut = true
	for c := range t.live {
		c.Close()
	}
	t.mu.Unlock()
	err := t.ln.Close()
	t.wg.Wait()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
