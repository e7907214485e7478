package deploy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/semaphore"
)

// maxSessionsPerHost keeps us under sshd's default MaxSessions of 10 on one
// connection, with room for a user's own multiplexed sessions.
const maxSessionsPerHost = 8

// Defaults of the connection pool.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultKeepAlive      = 15 * time.Second
	keepAliveMisses       = 3
)

// Pool holds one SSH connection per host (and per jump host), reused by all
// of that host's sessions: checks, uploads and workers. It is safe for
// concurrent use. Close it when the workers it started are stopped.
type Pool struct {
	hostKeys  *hostKeys
	keys      *keyring
	timeout   time.Duration
	keepAlive time.Duration

	mu     sync.Mutex
	conns  map[string]*sshConn
	closed bool
}

// sshConn is one pooled connection; ready is closed once client or err is set.
type sshConn struct {
	ep     endpoint
	ready  chan struct{}
	client *ssh.Client
	err    error
	slots  *semaphore.Weighted // session slots, see maxSessionsPerHost
}

// NewPool builds a connection pool from the inventory's SSH defaults and opt.
func NewPool(inv *Inventory, opt Options) (*Pool, error) {
	known := opt.KnownHosts
	timeout := opt.ConnectTimeout
	if inv != nil {
		if known == "" {
			known = expandHome(inv.Defaults.KnownHosts)
		}
		if timeout == 0 {
			timeout = inv.Defaults.ConnectTimeout
		}
	}
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	hk, err := newHostKeys(known, opt.AcceptNew, opt.ConfirmHostKey)
	if err != nil {
		return nil, err
	}
	ka := opt.KeepAlive
	if ka == 0 {
		ka = DefaultKeepAlive
	}
	return &Pool{hostKeys: hk, keys: newKeyring(opt.Agent, opt.Passphrase),
		timeout: timeout, keepAlive: ka, conns: map[string]*sshConn{}}, nil
}

// ErrPoolClosed is returned when a closed Pool is asked for a connection.
var ErrPoolClosed = errors.New("deploy: connection pool closed")

// Close closes every connection (which ends every session on them).
func (p *Pool) Close() error {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[string]*sshConn{}
	p.closed = true
	p.mu.Unlock()
	for _, c := range conns {
		<-c.ready
		if c.client != nil {
			c.client.Close()
		}
	}
	p.keys.close()
	return nil
}

// get returns the pooled connection to e, dialing it (and its jump hosts) if
// needed. Concurrent callers for the same endpoint share one dial.
func (p *Pool) get(ctx context.Context, e endpoint) (*sshConn, error) {
	k := e.key()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	c, ok := p.conns[k]
	if !ok {
		c = &sshConn{ep: e, ready: make(chan struct{}), slots: semaphore.NewWeighted(maxSessionsPerHost)}
		p.conns[k] = c
		go p.dial(ctx, c)
	}
	p.mu.Unlock()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("deploy: connect to %s: %w", e, ctx.Err())
	}
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// dial connects c and publishes the result; a failed or later broken
// connection leaves the pool so the next get dials again.
func (p *Pool) dial(ctx context.Context, c *sshConn) {
	c.client, c.err = p.connect(ctx, c.ep)
	if c.err != nil {
		p.forget(c)
		close(c.ready)
		return
	}
	close(c.ready)
	go p.keepalive(c)
	go func() {
		c.client.Wait()
		p.forget(c)
	}()
}

func (p *Pool) forget(c *sshConn) {
	p.mu.Lock()
	if p.conns[c.ep.key()] == c {
		delete(p.conns, c.ep.key())
	}
	p.mu.Unlock()
}

// connect opens the TCP connection (directly or through the last jump host)
// and runs the SSH handshake on it, verifying the host key at every hop.
func (p *Pool) connect(ctx context.Context, e endpoint) (*ssh.Client, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	defer cancel()
	var nc net.Conn
	var err error
	var via string
	if n := len(e.via); n > 0 {
		jump, jerr := p.get(ctx, e.via[n-1])
		if jerr != nil {
			return nil, fmt.Errorf("deploy: connect to %s via %s: %w", e, e.via[n-1], jerr)
		}
		via = " via " + jump.ep.String()
		nc, err = jump.client.DialContext(ctx, "tcp", e.addr())
	} else {
		var d net.Dialer
		nc, err = d.DialContext(ctx, "tcp", e.addr())
	}
	if err != nil {
		return nil, fmt.Errorf("deploy: connect to %s%s: %w", e, via, err)
	}
	client, err := p.handshake(ctx, nc, e)
	if err != nil {
		return nil, fmt.Errorf("deploy: ssh handshake with %s%s: %w", e, via, err)
	}
	return client, nil
}

// handshake runs the SSH handshake on nc, closing nc if ctx ends first (a
// server that accepts and never speaks must not hang us; tunnelled
// connections have no deadlines, so closing is the only portable way).
func (p *Pool) handshake(ctx context.Context, nc net.Conn, e endpoint) (*ssh.Client, error) {
	auth, err := p.keys.methods(e.host, e.identity)
	if err != nil {
		nc.Close()
		return nil, err
	}
	cfg := &ssh.ClientConfig{
		User:              e.user,
		Auth:              auth,
		HostKeyCallback:   p.hostKeys.callback(e.addr()),
		HostKeyAlgorithms: p.hostKeys.algorithms(e.addr()),
		Timeout:           p.timeout,
	}
	done := make(chan struct{})
	watchdog := make(chan struct{})
	go func() {
		defer close(watchdog)
		select {
		case <-ctx.Done():
			nc.Close()
		case <-done:
		}
	}()
	conn, chans, reqs, err := ssh.NewClientConn(nc, e.addr(), cfg)
	close(done)
	<-watchdog
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer within %v: %w", p.timeout, ctx.Err())
		}
		return nil, err
	}
	return ssh.NewClient(conn, chans, reqs), nil
}

// keepalive sends keepalive@openssh.com requests and closes the connection
// after keepAliveMisses unanswered ones, so a dead host is noticed.
func (p *Pool) keepalive(c *sshConn) {
	if p.keepAlive < 0 {
		return
	}
	t := time.NewTicker(p.keepAlive)
	defer t.Stop()
	misses := 0
	closed := make(chan struct{})
	go func() { c.client.Wait(); close(closed) }()
	for {
		select {
		case <-closed:
			return
		case <-t.C:
		}
		res := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			res <- err
		}()
		select {
		case err := <-res:
			if err != nil {
				c.client.Close()
				return
			}
			misses = 0
		case <-time.After(p.keepAlive):
			misses++
			if misses >= keepAliveMisses {
				c.client.Close()
				return
			}
		case <-closed:
			return
		}
	}
}
