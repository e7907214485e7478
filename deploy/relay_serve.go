package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"strconv"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// ServeRelay is `gridtui relay`, run by the console on a site's seed host
// (relay.go): it reads a relay request from in, copies the binary it names
// to every target over SSH — logging in with the agent the console
// forwarded, accepting only the host key the console verified — and writes
// each target's progress and outcome to out as JSON lines. It stops when
// in closes (the console went away) or ctx ends.
func ServeRelay(ctx context.Context, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	var req relayRequest
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("deploy: relay: read request: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, io.MultiReader(dec.Buffered(), in))
		cancel()
	}()
	w := &relayWriter{enc: json.NewEncoder(out)}
	bin, signers, closeAgent, err := relaySource(req)
	if err != nil {
		for _, t := range req.Targets {
			w.done(t.Name, 0, err)
		}
		return err
	}
	defer closeAgent()
	d := &deployer{ev: &emitter{fn: w.event}}
	var g errgroup.Group
	g.SetLimit(max(req.Width, 1))
	for _, t := range req.Targets {
		g.Go(func() error {
			n, err := d.relayTo(ctx, t, bin, signers)
			w.done(t.Name, n, err)
			return nil
		})
	}
	g.Wait()
	return nil
}

// relaySource checks the binary to relay against the request's sha256 and
// returns it with the forwarded agent's keys and a function that closes the
// connection to the agent.
func relaySource(req relayRequest) (binary, func() ([]ssh.Signer, error), func(), error) {
	here, _ := os.Hostname()
	bin, err := hashFileNow(req.Source)
	if err != nil {
		return binary{}, nil, nil, fmt.Errorf("deploy: relay on %s: %w", here, err)
	}
	if bin.sum != req.Sum {
		return binary{}, nil, nil, fmt.Errorf("deploy: relay on %s: %s has sha256 %s, want %s", here, req.Source, bin.sum, req.Sum)
	}
	sock := os.Getenv("SSH_AUTH_SOCK")
	if sock == "" {
		return binary{}, nil, nil, fmt.Errorf("deploy: relay on %s: no forwarded ssh agent (SSH_AUTH_SOCK is unset: does sshd allow agent forwarding?)", here)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		return binary{}, nil, nil, fmt.Errorf("deploy: relay on %s: forwarded agent: %w", here, err)
	}
	ag := agent.NewClient(c) // safe for concurrent use; the connection stays open for signing
	if _, err := ag.List(); err != nil {
		c.Close()
		return binary{}, nil, nil, fmt.Errorf("deploy: relay on %s: forwarded agent: %w", here, err)
	}
	return bin, ag.Signers, func() { c.Close() }, nil
}

// relayTo copies bin to t's work directory through an exec channel, as the
// console does (temporary name, verify, rename).
func (d *deployer) relayTo(ctx context.Context, t relayTarget, bin binary, signers func() ([]ssh.Signer, error)) (int64, error) {
	c, err := dialTarget(ctx, t, signers)
	if err != nil {
		return 0, err
	}
	defer c.client.Close()
	h := inventory.Host{Name: t.Name}
	if err := checkWorkdir(h, t.Workdir); err != nil {
		return 0, err
	}
	if _, err := c.run(ctx, "mkdir -p "+shQuote(t.Workdir)); err != nil {
		return 0, err
	}
	return d.uploadExec(ctx, c, h, bin, t.Workdir, path.Join(t.Workdir, binaryName), false)
}

// dialTarget connects to t as its user with the forwarded agent's keys,
// accepting only the host key in the request.
func dialTarget(ctx context.Context, t relayTarget, signers func() ([]ssh.Signer, error)) (*sshConn, error) {
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(t.HostKey))
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: host key: %w", t.Name, err)
	}
	host, port, err := net.SplitHostPort(t.Addr)
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: address %q: %w", t.Name, t.Addr, err)
	}
	p, _ := strconv.Atoi(port)
	ep := endpoint{name: t.Name, user: t.User, host: host, port: p}
	dctx, cancel := context.WithTimeout(ctx, t.timeout())
	defer cancel()
	var dl net.Dialer
	nc, err := dl.DialContext(dctx, "tcp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("deploy: relay to %s: %w", ep, err)
	}
	stop := context.AfterFunc(dctx, func() { nc.Close() })
	cfg := &ssh.ClientConfig{User: t.User, Auth: []ssh.AuthMethod{ssh.PublicKeysCallback(signers)},
		HostKeyCallback: ssh.FixedHostKey(key), HostKeyAlgorithms: hostKeyAlgorithms(key)}
	conn, chans, reqs, err := ssh.NewClientConn(nc, t.Addr, cfg)
	if !stop() {
		err = errors.Join(err, dctx.Err())
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("deploy: relay to %s: ssh handshake: %w", ep, err)
	}
	ready := make(chan struct{})
	close(ready)
	return &sshConn{ep: ep, ready: ready, client: ssh.NewClient(conn, chans, reqs), slots: semaphore.NewWeighted(maxSessionsPerHost)}, nil
}

// hostKeyAlgorithms are the algorithms a server may use to prove it holds key.
func hostKeyAlgorithms(key ssh.PublicKey) []string {
	if key.Type() == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{key.Type()}
}

// relayWriter writes relay events as JSON lines, one at a time.
type relayWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (w *relayWriter) write(e relayEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.enc.Encode(e)
}

// event reports a target's progress (the emitter of relayTo's deployer).
func (w *relayWriter) event(e Event) {
	w.write(relayEvent{Host: e.Host, Phase: e.Phase, Progress: e.Progress})
}

// done reports a target's outcome.
func (w *relayWriter) done(host string, n int64, err error) {
	e := relayEvent{Host: host, Done: true, Bytes: n}
	if err != nil {
		e.Err = err.Error()
	}
	w.write(e)
}
