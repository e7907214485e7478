package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy/sshclient"
)

// A site's hosts usually reach each other over a network much faster than
// the wide-area link between the console and the site. So the binary
// crosses that link once per site: one host of the site (the seed: a host
// that already has it, else the first to need it) gets it from the console,
// then `gridtui relay` runs on the seed and copies it to the other hosts
// over SSH on the site's network. The seed logs in to them with the
// console's keys, forwarded as an SSH agent for the relay's session only
// (as ssh -A does), and accepts exactly the host key the console verified
// for each. A host the relay cannot serve (sshd refuses agent forwarding,
// the seed cannot reach it, an older binary without the relay) gets the
// binary from the console, as without a relay.

// group is a seed and the hosts it relays to.
type group struct {
	seed    *plan
	targets []*plan
}

// relayGroups groups the hosts to upload to by site and binary, seed first.
// Hosts reached through a proxy command (whose address from inside the site
// is unknown) and, with relay false, every host are groups of their own.
func relayGroups(plans []*plan, relay bool) []group {
	var out []group
	bySite := map[string]int{}
	var members [][]*plan
	for _, p := range plans {
		if p == nil {
			continue
		}
		if !relay || p.c.ProxyCommand() != "" || p.c.HostKey() == nil {
			if !p.unchanged {
				out = append(out, group{seed: p})
			}
			continue
		}
		k := p.h.Site + "\x00" + p.bin.sum
		i, ok := bySite[k]
		if !ok {
			i = len(members)
			bySite[k] = i
			members = append(members, nil)
		}
		members[i] = append(members[i], p)
	}
	for _, m := range members {
		seed := m[0]
		for _, p := range m {
			if p.unchanged {
				seed = p
				break
			}
		}
		g := group{seed: seed}
		for _, p := range m {
			if p != seed && !p.unchanged {
				g.targets = append(g.targets, p)
			}
		}
		if !seed.unchanged || len(g.targets) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// uploadAll uploads to every host that needs it, group by group, and puts
// each host's outcome in results.
func (d *deployer) uploadAll(ctx context.Context, plans []*plan, results []Result, width int, relay bool) {
	var g errgroup.Group
	g.SetLimit(width)
	for _, gr := range relayGroups(plans, relay) {
		g.Go(func() error {
			d.uploadGroup(ctx, gr, results, width)
			return nil
		})
	}
	g.Wait()
}

// uploadGroup uploads to the group's seed, has it relay to the targets, and
// uploads from the console to the targets it could not serve.
func (d *deployer) uploadGroup(ctx context.Context, gr group, results []Result, width int) {
	if !gr.seed.unchanged {
		results[gr.seed.i] = d.uploadHost(ctx, gr.seed)
	}
	if len(gr.targets) == 0 {
		return
	}
	left, why := gr.targets, errors.New("the seed has no binary")
	if results[gr.seed.i].Phase == PhaseReady {
		left, why = d.relay(ctx, gr.seed, gr.targets, results)
	}
	var g errgroup.Group
	g.SetLimit(width)
	for _, p := range left {
		g.Go(func() error {
			d.ev.emit(p.h.Name, PhaseUpload, 0, "from the console: "+why.Error(), nil)
			r := d.uploadHost(ctx, p)
			if r.Err != nil {
				r.Err = fmt.Errorf("%w (relay from %s failed first: %v)", r.Err, gr.seed.h.Name, why)
			}
			results[p.i] = r
			return nil
		})
	}
	g.Wait()
}

// relayRequest is what the console writes to `gridtui relay` on the seed.
type relayRequest struct {
	Source  string        `json:"source"` // the binary, relative to the relay's directory
	Sum     string        `json:"sha256"`
	Width   int           `json:"width"`
	Targets []relayTarget `json:"targets"`
}

// relayTarget is a host the seed copies the binary to.
type relayTarget struct {
	Name      string `json:"name"`
	Addr      string `json:"addr"` // host:port, as the console's last hop dials it
	User      string `json:"user"`
	HostKey   string `json:"host_key"` // authorized_keys format: the key the console verified
	Workdir   string `json:"workdir"`
	TimeoutMS int64  `json:"timeout_ms"`
}

// relayEvent is a line `gridtui relay` writes: a target's progress, or,
// with Done, its outcome.
type relayEvent struct {
	Host     string  `json:"host"`
	Phase    Phase   `json:"phase,omitempty"`
	Progress float64 `json:"progress,omitempty"`
	Done     bool    `json:"done,omitempty"`
	Bytes    int64   `json:"bytes,omitempty"`
	Err      string  `json:"err,omitempty"`
}

// relay runs `gridtui relay` on seed for targets and records the outcome of
// those it served in results. It returns the targets left to upload from
// the console, and why they were left.
func (d *deployer) relay(ctx context.Context, seed *plan, targets []*plan, results []Result) ([]*plan, error) {
	req, byName := d.relayRequest(seed, targets)
	if err := seed.c.ForwardAgent(d.relaySigners(targets)); err != nil {
		return targets, err
	}
	errs := map[string]string{}
	err := runRelay(ctx, seed, req, func(e relayEvent) {
		p := byName[e.Host]
		switch {
		case p == nil:
		case !e.Done:
			d.ev.emit(p.h.Name, e.Phase, e.Progress, "from "+seed.h.Name, nil)
		case e.Err != "":
			errs[p.h.Name] = e.Err
		default:
			results[p.i] = d.ready(p, e.Bytes, "relayed from "+seed.h.Name+" ("+humanBytes(e.Bytes)+" over the site's network)")
			results[p.i].RelayedFrom = seed.h.Name
		}
	})
	var left []*plan
	var why []string
	for _, p := range targets {
		if results[p.i].Phase == PhaseReady {
			continue
		}
		left = append(left, p)
		if m, ok := errs[p.h.Name]; ok {
			why = append(why, p.h.Name+": "+m)
		}
	}
	if err != nil {
		why = append(why, err.Error())
	}
	if len(left) == 0 {
		return nil, nil
	}
	if len(why) == 0 {
		why = append(why, "no outcome reported")
	}
	return left, fmt.Errorf("deploy: relay on %s: %s", seed.h.Name, strings.Join(why, "; "))
}

// relayRequest builds the request for targets, and indexes them by name.
func (d *deployer) relayRequest(seed *plan, targets []*plan) (relayRequest, map[string]*plan) {
	req := relayRequest{Source: binaryName, Sum: seed.bin.sum, Width: sshclient.MaxSessionsPerHost}
	byName := map[string]*plan{}
	for _, p := range targets {
		byName[p.h.Name] = p
		req.Targets = append(req.Targets, relayTarget{Name: p.h.Name, Addr: p.c.Addr(), User: p.c.User(),
			HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(p.c.HostKey()))), Workdir: p.wd,
			TimeoutMS: d.pool.ConnectTimeout(p.c).Milliseconds()})
	}
	return req, byName
}

// relaySigners is every key the console would offer to one of targets.
func (d *deployer) relaySigners(targets []*plan) []ssh.Signer {
	var out []ssh.Signer
	seen := map[string]bool{}
	for _, p := range targets {
		ss, err := d.pool.Signers(p.c)
		if err != nil {
			continue
		}
		for _, s := range ss {
			if k := string(s.PublicKey().Marshal()); !seen[k] {
				seen[k] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// runRelay starts `gridtui relay` in seed's work directory with agent
// forwarding, writes req to it and hands every line it prints to event.
func runRelay(ctx context.Context, seed *plan, req relayRequest, event func(relayEvent)) error {
	c := seed.c
	release, err := c.Acquire(ctx, 1)
	if err != nil {
		return err
	}
	defer release()
	s, stdin, stdout, err := openWorkerSession(ctx, c)
	if err != nil {
		return err
	}
	defer s.Close()
	var errb bytes.Buffer
	s.Stderr = &limitedBuffer{buf: &errb, max: 4096}
	if err := agent.RequestAgentForwarding(s); err != nil {
		return fmt.Errorf("deploy: %s refuses agent forwarding: %w", c, err)
	}
	if err := s.Start("cd " + shQuote(seed.wd) + " && exec ./" + binaryName + " relay"); err != nil {
		return fmt.Errorf("deploy: start relay on %s: %w", c, err)
	}
	stop := context.AfterFunc(ctx, func() { s.Signal(ssh.SIGKILL); s.Close() })
	defer stop()
	if err := json.NewEncoder(stdin).Encode(req); err != nil {
		return fmt.Errorf("deploy: relay on %s: %w", c, err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var e relayEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			event(e)
		}
	}
	stdin.Close()
	err = s.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("deploy: relay on %s: %w", c, ctx.Err())
	}
	if err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return fmt.Errorf("deploy: relay on %s: %w: %s", c, err, msg)
		}
		return fmt.Errorf("deploy: relay on %s: %w", c, err)
	}
	return nil
}

// relayTimeout is a target's connect timeout, from its request.
func (t relayTarget) timeout() time.Duration {
	if t.TimeoutMS <= 0 {
		return sshclient.DefaultConnectTimeout
	}
	return time.Duration(t.TimeoutMS) * time.Millisecond
}
