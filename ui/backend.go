package ui

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/shirou/gopsutil/v4/load"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/probe"
)

// This file holds the console's side effects: each is a method returning a
// tea.Cmd whose result comes back to Update as a typed message.

// deployEventMsg carries one deployment event, and the channel to read the
// next one from.
type deployEventMsg struct {
	ev deploy.Event
	ch <-chan tea.Msg
}

// deployDoneMsg ends a deployment (or a stop).
type deployDoneMsg struct {
	what    string // "deploy" or "stop"
	summary deploy.Summary
	err     error
}

// hostKeyPromptMsg asks the user about an unknown host key; the deploy
// goroutine waits for the answer on reply.
type hostKeyPromptMsg struct {
	host, fingerprint string
	reply             chan<- bool
	ch                <-chan tea.Msg
}

// passphrasePromptMsg asks the user for the passphrase of an encrypted
// identity file; the deploy goroutine waits for it on reply (nil: refused).
type passphrasePromptMsg struct {
	host, keyfile string
	reply         chan<- []byte
	ch            <-chan tea.Msg
}

// errNoPassphrase is returned to deploy when the user cancels the prompt.
var errNoPassphrase = errors.New("ui: passphrase prompt cancelled")

// loadMsg carries the local machine's load average.
type loadMsg struct {
	load float64
	err  error
}

// listen returns a command that reads the next message of a stream.
func listen(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// deployCmd uploads the worker binary to hosts (deploy.Deploy; local hosts
// are ready at once) or stops their workers, streaming progress events and
// host-key questions back to the UI.
func deployCmd(ctx context.Context, inv *deploy.Inventory, hosts []deploy.Host, stop bool) tea.Cmd {
	ch := make(chan tea.Msg, 64)
	opt := deploy.Options{
		Events: func(ev deploy.Event) {
			select {
			case ch <- deployEventMsg{ev: ev, ch: ch}:
			case <-ctx.Done():
			}
		},
		ConfirmHostKey: func(host, fp string) bool {
			reply := make(chan bool, 1)
			select {
			case ch <- hostKeyPromptMsg{host: host, fingerprint: fp, reply: reply, ch: ch}:
			case <-ctx.Done():
				return false
			}
			select {
			case ok := <-reply:
				return ok
			case <-ctx.Done():
				return false
			}
		},
	}
	opt.Passphrase = func(host, keyfile string) ([]byte, error) {
		reply := make(chan []byte, 1)
		select {
		case ch <- passphrasePromptMsg{host: host, keyfile: keyfile, reply: reply, ch: ch}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case pass := <-reply:
			if pass == nil {
				return nil, fmt.Errorf("%w for %s (%s)", errNoPassphrase, keyfile, host)
			}
			return pass, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	go func() {
		defer close(ch)
		var sum deploy.Summary
		var err error
		what := "deploy"
		if stop {
			what = "stop"
			sum, err = deploy.Stop(ctx, inv, hosts, opt)
		} else {
			sum, err = deploy.Deploy(ctx, inv, hosts, opt)
		}
		select {
		case ch <- deployDoneMsg{what: what, summary: sum, err: err}:
		case <-ctx.Done():
		}
	}()
	return listen(ch)
}

// loadTick samples the local load average every two seconds (the local
// grid's hosts share this machine).
func loadTick() tea.Cmd {
	return tea.Tick(2*time.Second, func(time.Time) tea.Msg {
		avg, err := load.Avg()
		if err != nil {
			return loadMsg{load: -1, err: fmt.Errorf("ui: load average: %w", err)}
		}
		return loadMsg{load: avg.Load1}
	})
}

// htableMsg carries a freshly probed Htable.
type htableMsg struct {
	table    *probe.Htable
	err      error
	warnings []string
}

// probeCmd builds the Htable: local-launcher nodes from the inventory, SSH
// hosts from the NICs their workers report (each started briefly with a
// throw-away run secret, then stopped). SSH hosts must have been deployed
// (Sites, d); a host whose worker does not start is left out with a warning.
func probeCmd(ctx context.Context, inv *deploy.Inventory) tea.Cmd {
	return func() tea.Msg {
		if inv == nil {
			return htableMsg{err: fmt.Errorf("ui: no inventory")}
		}
		nodes := inventoryNodes(inv)
		var remote []deploy.Host
		for _, h := range inv.Hosts() {
			if !h.EthernetAddr.IsValid() {
				remote = append(remote, h)
			}
		}
		var warnings []string
		if len(remote) > 0 {
			got, err := probeRemote(ctx, inv, remote)
			nodes = append(nodes, got...)
			if err != nil {
				warnings = append(warnings, err.Error())
			}
		}
		h, err := probe.NewHtable(nodes, probe.Locality{Rule: string(inv.Locality), PrefixBits: inv.PrefixBits})
		return htableMsg{table: h, err: err, warnings: warnings}
	}
}

// probeRemote starts workers on SSH hosts just long enough to read their
// hellos (NICs and host identity), then stops them.
func probeRemote(ctx context.Context, inv *deploy.Inventory, hosts []deploy.Host) ([]probe.Node, error) {
	var id [16]byte
	secret := make([]byte, 32)
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("ui: probe: %w", err)
	}
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("ui: probe: %w", err)
	}
	boot := func(h deploy.Host) deploy.Boot {
		return deploy.Boot{Node: h.Name, RunID: id, Secret: secret, Ethernet: h.Ethernet, Fast: h.Fast, Cluster: h.Cluster}
	}
	workers, err := deploy.StartWorkers(ctx, inv, hosts, boot, deploy.Options{})
	if err != nil {
		return nil, fmt.Errorf("ui: probe %d ssh host(s) (deploy them first): %w", len(hosts), err)
	}
	var nodes []probe.Node
	for _, w := range workers {
		nodes = append(nodes, probe.Node{Name: w.Host.Name, Host: w.Hello.Host, Cluster: w.Host.Cluster,
			NICs: probe.ApplyHints(w.Hello.NICs, w.Host.Ethernet, w.Host.Fast)})
	}
	for _, w := range workers {
		if serr := w.Stop(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("ui: probe: stop worker %s: %w", w.Host.Name, serr))
		}
	}
	return nodes, err
}

// HtableFromInventory builds the Htable of the inventory's local-launcher
// nodes (GRIDHPC Table I on the loopback range): each local node is its own
// simulated host with an Ethernet and an Infiniband address. SSH hosts are
// known only once their workers have said hello, so they are skipped.
func HtableFromInventory(inv *deploy.Inventory) (*probe.Htable, error) {
	if inv == nil {
		return nil, fmt.Errorf("ui: no inventory")
	}
	nodes := inventoryNodes(inv)
	return probe.NewHtable(nodes, probe.Locality{Rule: string(inv.Locality), PrefixBits: inv.PrefixBits})
}

// inventoryNodes describes the local-launcher nodes by their inventory
// addresses: each its own simulated host, an Ethernet and an Infiniband
// address (the loopback range of the embedded local grid).
func inventoryNodes(inv *deploy.Inventory) []probe.Node {
	var nodes []probe.Node
	for _, h := range inv.Hosts() {
		if !h.EthernetAddr.IsValid() {
			continue
		}
		n := probe.Node{Name: h.Name, Host: h.Name, Cluster: h.Cluster}
		n.NICs = append(n.NICs, probe.NIC{Name: orDefault(h.Ethernet, "eth0"), Kind: probe.Ethernet, Up: true, Addrs: []netip.Addr{h.EthernetAddr}})
		if h.FastAddr.IsValid() {
			n.NICs = append(n.NICs, probe.NIC{Name: orDefault(h.Fast, "ib0"), Kind: probe.Infiniband, Up: true, Addrs: []netip.Addr{h.FastAddr}})
		}
		nodes = append(nodes, n)
	}
	return nodes
}
