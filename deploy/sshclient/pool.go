package sshclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/semaphore"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// MaxSessionsPerHost keeps us under sshd's default MaxSessions of 10 on one
// connection, with room for a user's own multiplexed sessions.
const MaxSessionsPerHost = 8

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
	trust     *trust
	keys      *keyring
	resolver  SSHResolver
	timeout   time.Duration // forced by the options or inventory (0: per host)
	keepAlive time.Duration // forced by the options (0: per host)

	mu     sync.Mutex
	conns  map[string]*Conn
	closed bool
}

// Conn is one pooled connection; ready is closed once client or err is set.
type Conn struct {
	ep     endpoint
	ready  chan struct{}
	client *ssh.Client
	err    error
	slots  *semaphore.Weighted // session slots, see MaxSessionsPerHost
	// hostKey is the key the server presented and we verified: a relay
	// (relay.go) gives it to the host that reaches this one for us.
	hostKey ssh.PublicKey

	agentOnce sync.Once // the relay's agent forwarding, set up once
	agent     *SignerAgent
	agentErr  error
}

// String names the connection's host in errors and events
// ("user@host:port", the alias first).
func (c *Conn) String() string { return c.ep.String() }

// Client is the SSH client of the connection.
func (c *Conn) Client() *ssh.Client { return c.client }

// HostKey is the key the server presented and the pool verified (nil on a
// connection made through a proxy command that did not record it).
func (c *Conn) HostKey() ssh.PublicKey { return c.hostKey }

// Addr is the "host:port" dialed, as recorded in known_hosts.
func (c *Conn) Addr() string { return c.ep.addr() }

// User is the login name on the host.
func (c *Conn) User() string { return c.ep.user }

// ProxyCommand is the ProxyCommand the host is reached through ("" if none).
func (c *Conn) ProxyCommand() string { return c.ep.proxyCmd }

// ConnectTimeout is how long connecting to c's host may take.
func (p *Pool) ConnectTimeout(c *Conn) time.Duration { return p.connectTimeout(c.ep) }

// KeepAlive is how often the pool checks that c's host still answers, and
// after how many unanswered checks it gives the connection up.
func (p *Pool) KeepAlive(c *Conn) (every time.Duration, misses int) { return p.keepAliveOf(c.ep) }

// Signers are the keys the pool offers c's host.
func (p *Pool) Signers(c *Conn) ([]ssh.Signer, error) {
	ss, _, err := p.keys.signersFor(c.ep)
	return ss, err
}

// Config says how a Pool reaches hosts. The zero value is usable.
type Config struct {
	// AcceptNew trusts and records unknown host keys (never changed ones).
	AcceptNew bool
	// ConfirmHostKey, if set, is asked about unknown host keys when
	// AcceptNew is false (the console's prompt).
	ConfirmHostKey HostKeyPrompt
	// Challenge, if set, answers keyboard-interactive authentication (the
	// one-time codes of HPC frontends), tried after the keys.
	Challenge ChallengePrompt
	// Passphrase is asked for the passphrase of encrypted identity files.
	Passphrase PassphrasePrompt
	// KnownHosts overrides the inventory's known_hosts file.
	KnownHosts string
	// SSHConfig is the ssh configuration file to resolve hosts with (ssh
	// -F; "none" reads none). Empty: ~/.ssh/config and /etc/ssh/ssh_config.
	SSHConfig string
	// Resolver overrides how hosts are resolved (default: NewSSHResolver).
	Resolver SSHResolver
	// Agent is the ssh-agent socket: "" means $SSH_AUTH_SOCK, "none"
	// disables.
	Agent string
	// ConnectTimeout bounds connecting and the SSH handshake per hop
	// (default: the inventory's connect_timeout, else the host's
	// ConnectTimeout in the ssh configuration, else 10 s).
	ConnectTimeout time.Duration
	// KeepAlive is the keepalive interval (default: the host's
	// ServerAliveInterval in the ssh configuration, else 15 s; negative
	// disables).
	KeepAlive time.Duration
}

// NewPool builds a connection pool from the inventory's SSH defaults and opt.
// What neither says comes from the ssh configuration of each host (ssh -G).
func NewPool(inv *inventory.Inventory, opt Config) (*Pool, error) {
	known := opt.KnownHosts
	timeout := opt.ConnectTimeout
	if inv != nil {
		if known == "" {
			known = ExpandHome(inv.Defaults.KnownHosts)
		}
		if timeout == 0 {
			timeout = inv.Defaults.ConnectTimeout
		}
	}
	r := opt.Resolver
	if r == nil {
		r = NewSSHResolver(opt.SSHConfig)
	}
	return &Pool{trust: newTrust(known, opt.AcceptNew, opt.ConfirmHostKey), keys: newKeyring(opt.Agent, opt.Passphrase, opt.Challenge),
		resolver: newCachedResolver(r), timeout: timeout, keepAlive: opt.KeepAlive, conns: map[string]*Conn{}}, nil
}

// connectTimeout is the pool's forced timeout, else e's ConnectTimeout, else
// the default.
func (p *Pool) connectTimeout(e endpoint) time.Duration {
	return time.Duration(cmp.Or(int(p.timeout), int(e.timeout), int(DefaultConnectTimeout)))
}

// keepAliveOf is the pool's forced interval, else e's ServerAliveInterval,
// else the default; negative disables.
func (p *Pool) keepAliveOf(e endpoint) (time.Duration, int) {
	misses := keepAliveMisses
	if e.aliveMax > 0 {
		misses = e.aliveMax
	}
	return time.Duration(cmp.Or(int(p.keepAlive), int(e.alive), int(DefaultKeepAlive))), misses
}

// ErrPoolClosed is returned when a closed Pool is asked for a connection.
var ErrPoolClosed = errors.New("deploy: connection pool closed")

// Close closes every connection (which ends every session on them).
func (p *Pool) Close() error {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[string]*Conn{}
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
func (p *Pool) get(ctx context.Context, e endpoint) (*Conn, error) {
	k := e.key()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	c, ok := p.conns[k]
	if !ok {
		c = &Conn{ep: e, ready: make(chan struct{}), slots: semaphore.NewWeighted(MaxSessionsPerHost)}
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
func (p *Pool) dial(ctx context.Context, c *Conn) {
	c.client, c.hostKey, c.err = p.connect(ctx, c.ep)
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

func (p *Pool) forget(c *Conn) {
	p.mu.Lock()
	if p.conns[c.ep.key()] == c {
		delete(p.conns, c.ep.key())
	}
	p.mu.Unlock()
}

// connect opens the TCP connection (directly, through the last jump host or
// through the proxy command) and runs the SSH handshake on it, verifying the
// host key at every hop. The jump host is waited for without this hop's
// timeout: its own dial is bounded by its own, and a question about its key
// must not use up ours.
func (p *Pool) connect(ctx context.Context, e endpoint) (*ssh.Client, ssh.PublicKey, error) {
	timeout := p.connectTimeout(e)
	var via string
	if n := len(e.via); n > 0 {
		jump, jerr := p.get(context.WithoutCancel(ctx), e.via[n-1])
		if jerr != nil {
			return nil, nil, fmt.Errorf("deploy: connect to %s via %s: %w", e, e.via[n-1], jerr)
		}
		via = " via " + jump.ep.String()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		nc, err := jump.client.DialContext(dctx, "tcp", e.addr())
		if err != nil {
			return nil, nil, fmt.Errorf("deploy: connect to %s%s: %w", e, via, err)
		}
		return p.handshakeVia(nc, e, via, timeout)
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if e.proxyCmd != "" {
		pc, err := startProxyCommand(dctx, e.proxyCmd, e.addr())
		if err != nil {
			return nil, nil, fmt.Errorf("deploy: connect to %s: %w", e, err)
		}
		client, key, err := p.handshakeVia(pc, e, " through proxy command", timeout)
		if err != nil {
			return nil, nil, pc.explain(err)
		}
		return client, key, nil
	}
	var d net.Dialer
	nc, err := d.DialContext(dctx, "tcp", e.addr())
	if err != nil {
		if dctx.Err() != nil {
			return nil, nil, fmt.Errorf("deploy: connect to %s: no answer within %v: %w", e, timeout, dctx.Err())
		}
		return nil, nil, fmt.Errorf("deploy: connect to %s: %w", e, err)
	}
	return p.handshakeVia(nc, e, "", timeout)
}

func (p *Pool) handshakeVia(nc net.Conn, e endpoint, via string, timeout time.Duration) (*ssh.Client, ssh.PublicKey, error) {
	client, key, err := p.handshake(nc, e, timeout)
	if err != nil {
		return nil, nil, fmt.Errorf("deploy: ssh handshake with %s%s: %w", e, via, err)
	}
	return client, key, nil
}

// errHandshakeTimeout is what a handshake that ran out of time reports.
var errHandshakeTimeout = context.DeadlineExceeded

// handshake runs the SSH handshake on nc, closing nc if it takes longer than
// timeout (a server that accepts and never speaks must not hang us;
// tunnelled connections have no deadlines, so closing is the only portable
// way). Time spent waiting for the user to answer about a host key, or for
// another host's question to be answered, does not count.
func (p *Pool) handshake(nc net.Conn, e endpoint, timeout time.Duration) (*ssh.Client, ssh.PublicKey, error) {
	var w *watchdog // started below; the challenge prompt runs after that
	auth, err := p.keys.methods(e, func() func() { return w.pause() })
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	hk, err := p.trust.keys(e)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	var key ssh.PublicKey
	w = startWatchdog(timeout, func() { nc.Close() })
	cfg := &ssh.ClientConfig{
		User:              e.user,
		Auth:              auth,
		HostKeyCallback:   remember(hk.callback(p.trust, e.addr(), e.strict, w.pause), &key),
		HostKeyAlgorithms: hk.algorithms(e.addr()),
		Timeout:           timeout,
	}
	conn, chans, reqs, err := ssh.NewClientConn(nc, e.addr(), cfg)
	expired := w.stop()
	if err != nil {
		nc.Close()
		if expired {
			return nil, nil, fmt.Errorf("no answer within %v: %w", timeout, errHandshakeTimeout)
		}
		return nil, nil, err
	}
	return ssh.NewClient(conn, chans, reqs), key, nil
}

// remember wraps a host key callback so that the key it accepted is kept in
// *key.
func remember(cb ssh.HostKeyCallback, key *ssh.PublicKey) ssh.HostKeyCallback {
	return func(host string, remote net.Addr, k ssh.PublicKey) error {
		err := cb(host, remote, k)
		if err == nil {
			*key = k
		}
		return err
	}
}

// keepalive sends keepalive@openssh.com requests and closes the connection
// after ServerAliveCountMax unanswered ones, so a dead host is noticed.
func (p *Pool) keepalive(c *Conn) {
	every, maxMisses := p.keepAliveOf(c.ep)
	if every < 0 {
		return
	}
	t := time.NewTicker(every)
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
		case <-time.After(every):
			misses++
			if misses >= maxMisses {
				c.client.Close()
				return
			}
		case <-closed:
			return
		}
	}
}

// Connect resolves h and returns its pooled connection.
func Connect(ctx context.Context, p *Pool, h inventory.Host) (*Conn, error) {
	e, err := hostEndpoint(ctx, p.resolver, h)
	if err != nil {
		return nil, err
	}
	return p.get(ctx, e)
}
