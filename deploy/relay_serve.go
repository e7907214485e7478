package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
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
	c, err := sshclient.DialPinned(ctx, t.Name, t.User, t.Addr, t.HostKey, t.timeout(), signers)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	h := inventory.Host{Name: t.Name}
	if err := checkWorkdir(h, t.Workdir); err != nil {
		return 0, err
	}
	if _, err := c.Run(ctx, "mkdir -p "+shQuote(t.Workdir)); err != nil {
		return 0, err
	}
	return d.uploadExec(ctx, c, h, bin, t.Workdir, path.Join(t.Workdir, binaryName), false)
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
