package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/shirou/gopsutil/v4/load"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
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

// errNoChallenge is returned to deploy when the user refuses to answer a
// keyboard-interactive challenge.
var errNoChallenge = errors.New("ui: keyboard-interactive login cancelled")

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
func deployCmd(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, stop bool) tea.Cmd {
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
	opt.Challenge = func(host, instruction string, questions []string, echo []bool) ([]string, error) {
		reply := make(chan []string, 1)
		select {
		case ch <- challengePromptMsg{host: host, instruction: instruction, questions: questions, echo: echo, reply: reply, ch: ch}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case answers := <-reply:
			if answers == nil {
				return nil, fmt.Errorf("%w (%s)", errNoChallenge, host)
			}
			return answers, nil
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

// probeCmd builds the Htable of every host (grid.Probe): local-grid nodes
// from the inventory, SSH hosts from the NICs their workers report. SSH
// hosts must have been deployed (Sites, d); a host whose worker does not
// start is left out with a warning.
func probeCmd(ctx context.Context, inv *inventory.Inventory) tea.Cmd {
	return func() tea.Msg {
		h, skipped, err := grid.Probe(ctx, inv)
		var warnings []string
		if skipped != nil {
			warnings = append(warnings, skipped.Error())
		}
		return htableMsg{table: h, err: err, warnings: warnings}
	}
}
