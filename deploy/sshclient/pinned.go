package sshclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/semaphore"
)

// DialPinned connects to addr as user with signers' keys, accepting only
// hostKey (an authorized_keys line): how a relay reaches the hosts the
// console verified for it. name names the host in errors; timeout bounds
// the connection and the handshake.
func DialPinned(ctx context.Context, name, user, addr, hostKey string, timeout time.Duration, signers func() ([]ssh.Signer, error)) (*Conn, error) {
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(hostKey))
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: host key: %w", name, err)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: address %q: %w", name, addr, err)
	}
	p, _ := strconv.Atoi(port)
	ep := endpoint{name: name, user: user, host: host, port: p}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var dl net.Dialer
	nc, err := dl.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: %w", ep, err)
	}
	stop := context.AfterFunc(dctx, func() { nc.Close() })
	cfg := &ssh.ClientConfig{User: user, Auth: []ssh.AuthMethod{ssh.PublicKeysCallback(signers)},
		HostKeyCallback: ssh.FixedHostKey(key), HostKeyAlgorithms: hostKeyAlgorithms(key)}
	conn, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if !stop() {
		err = errors.Join(err, dctx.Err())
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("deploy: relay to %s: ssh handshake: %w", ep, err)
	}
	ready := make(chan struct{})
	close(ready)
	return &Conn{ep: ep, ready: ready, client: ssh.NewClient(conn, chans, reqs), slots: semaphore.NewWeighted(MaxSessionsPerHost)}, nil
}

// hostKeyAlgorithms are the algorithms a server may use to prove it holds key.
func hostKeyAlgorithms(key ssh.PublicKey) []string {
	if key.Type() == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{key.Type()}
}

// Close closes the connection (a pinned one; a pooled one closes with its
// Pool).
func (c *Conn) Close() error { return c.client.Close() }
