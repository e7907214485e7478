package deploy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/sshclient"
)

// Phase is a step of a host's deployment or of a worker's life.
type Phase string

// Phases in the order a host goes through them; Failed and Stopped end it.
const (
	PhaseConnect Phase = "connect"
	PhaseCheck   Phase = "check"
	PhaseUpload  Phase = "upload"
	PhaseVerify  Phase = "verify"
	PhaseStart   Phase = "start"
	// PhasePending: the batch scheduler has not granted the allocation yet;
	// Detail says why and where the job stands in the queue.
	PhasePending Phase = "pending"
	PhaseReady   Phase = "ready"
	// PhaseOwner: a decision of the host's owner policy about its worker
	// (start, suspend, continue, drain, stop: package owner), with its
	// reason in Detail.
	PhaseOwner   Phase = "owner"
	PhaseFailed  Phase = "failed"
	PhaseStopped Phase = "stopped"
)

// Event reports the progress of one host. Progress is 0..1 during upload.
type Event struct {
	Host     string
	Phase    Phase
	Progress float64
	Detail   string
	Err      error
	At       time.Time
	// Hello is the worker's hello on the PhaseReady event of a worker
	// StartWorkers started; nil otherwise.
	Hello *Hello
}

// DefaultWidth is how many hosts are deployed to at the same time.
const DefaultWidth = 32

// Default timeouts for workers.
const (
	DefaultHelloTimeout = 30 * time.Second
	DefaultStopTimeout  = 5 * time.Second
	DefaultStopGrace    = 3 * time.Second
)

// Options tune Deploy, StartWorkers, Stop and Clean. The zero value is usable.
type Options struct {
	// Width bounds how many hosts are worked on at once (default 32).
	Width int
	// AcceptNew trusts and records unknown host keys (never changed ones).
	AcceptNew bool
	// ConfirmHostKey, if set, is asked about unknown host keys when AcceptNew
	// is false (the console's prompt).
	ConfirmHostKey sshclient.HostKeyPrompt
	// Challenge, if set, answers keyboard-interactive authentication (the
	// one-time codes of HPC frontends), tried after the keys.
	Challenge sshclient.ChallengePrompt
	// Passphrase is asked for the passphrase of encrypted identity files.
	Passphrase sshclient.PassphrasePrompt
	// Events receives progress; the calls made by one Deploy, StartWorkers,
	// Stop or Clean (and by its workers) are serialized, never concurrent.
	Events func(Event)
	// Binary overrides the worker binary to upload (default: the running
	// binary when the remote OS/arch match, else Dist/gridtui-OS-ARCH).
	Binary string
	// NoCompress ships the binary as it is over SFTP (default: gzip-compressed
	// through an exec channel when the host has gzip).
	NoCompress bool
	// NoRelay uploads the binary from the console to every host. By
	// default a site's hosts get it from one of them (relay.go): it crosses
	// the wide-area link once per site.
	NoRelay bool
	// Dist is the directory of cross-built binaries (default "dist").
	Dist string
	// KnownHosts overrides the inventory's known_hosts file.
	KnownHosts string
	// SSHConfig is the ssh configuration file to resolve hosts with (ssh
	// -F; "none" reads none). Empty: ~/.ssh/config and /etc/ssh/ssh_config.
	SSHConfig string
	// Resolver overrides how hosts are resolved (default: NewSSHResolver).
	Resolver sshclient.SSHResolver
	// Agent is the ssh-agent socket: "" means $SSH_AUTH_SOCK, "none" disables.
	Agent string
	// ConnectTimeout bounds connecting and the SSH handshake per hop
	// (default: the inventory's connect_timeout, else the host's
	// ConnectTimeout in the ssh configuration, else 10 s).
	ConnectTimeout time.Duration
	// KeepAlive is the keepalive interval (default: the host's
	// ServerAliveInterval in the ssh configuration, else 15 s; negative
	// disables).
	KeepAlive time.Duration
	// HelloTimeout bounds the wait for a worker's hello (default 30 s).
	HelloTimeout time.Duration
	// StopTimeout is how long a worker may take to exit after its stdin
	// closes before it is killed (default 5 s).
	StopTimeout time.Duration
	// StopGrace is how long Stop and Clean wait after SIGTERM before they
	// SIGKILL a worker that is still there (default 3 s): a hung or stopped
	// worker does not act on SIGTERM.
	StopGrace time.Duration
	// Pool shares SSH connections between calls; nil gives each call its
	// own, closed when the call (or, for StartWorkers, the last worker) ends.
	Pool *sshclient.
		// Ship lists files Deploy copies beside the worker binary, into the
		// directory each host's worker runs in (ship.go): an SSH host's work
		// directory, the one a batch site's nodes share with its frontend (or
		// with this host, without one), a local node's own. A program of
		// app = "exec" and its files, which the job then names by their base
		// name on every kind of host.
		Pool

	Ship []string
}

// SSH is what of o says how hosts are reached (sshclient.NewPool's
// configuration).
func (o Options) SSH() sshclient.Config {
	return sshclient.Config{AcceptNew: o.AcceptNew, ConfirmHostKey: o.ConfirmHostKey, Challenge: o.Challenge,
		Passphrase: o.Passphrase, KnownHosts: o.KnownHosts, SSHConfig: o.SSHConfig, Resolver: o.Resolver,
		Agent: o.Agent, ConnectTimeout: o.ConnectTimeout, KeepAlive: o.KeepAlive}
}

func (o Options) width() int {
	if o.Width > 0 {
		return o.Width
	}
	return DefaultWidth
}

func (o Options) dist() string {
	if o.Dist != "" {
		return o.Dist
	}
	return "dist"
}

// emitter serializes calls to Options.Events.
type emitter struct {
	mu sync.Mutex
	fn func(Event)
}

func (e *emitter) emit(host string, p Phase, progress float64, detail string, err error) {
	if e == nil || e.fn == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fn(Event{Host: host, Phase: p, Progress: progress, Detail: detail, Err: err, At: time.Now()})
}

// emitHello reports a started worker: PhaseReady with its hello.
func (e *emitter) emitHello(host, detail string, h Hello) {
	if e == nil || e.fn == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fn(Event{Host: host, Phase: PhaseReady, Progress: 1, Detail: detail, At: time.Now(), Hello: &h})
}

// Result is the outcome for one host.
type Result struct {
	Host   string
	Phase  Phase // PhaseReady, PhaseStopped or PhaseFailed
	Detail string
	Err    error
	Bytes  int64 // bytes uploaded (0 when the binary was already there)
	// RelayedFrom is the host of the same site that relayed the binary to
	// this one (Bytes then crossed the site's network, not the console's).
	RelayedFrom string
	Elapsed     time.Duration
}

// Summary lists the outcome of every host of a fan-out, in the given order.
type Summary struct {
	Results []Result
}

// ErrHostsFailed is wrapped by Summary.Err when at least one host failed.
var ErrHostsFailed = errors.New("deploy: hosts failed")

// Failed returns the results of the hosts that failed.
func (s Summary) Failed() []Result {
	var out []Result
	for _, r := range s.Results {
		if r.Phase == PhaseFailed {
			out = append(out, r)
		}
	}
	return out
}

// Err is nil when every host succeeded, else a *HostsError: it wraps
// ErrHostsFailed and every host's error (errors.Is sees through it), and its
// text names every failed host with its reason.
func (s Summary) Err() error {
	f := s.Failed()
	if len(f) == 0 {
		return nil
	}
	return &HostsError{Failed: f, Total: len(s.Results)}
}

// HostsError is the error of a fan-out in which some hosts failed: their
// results, and how many hosts the fan-out had. errors.As finds it through
// the callers' wrapping, so a caller can act on the hosts that failed
// without reading the text.
type HostsError struct {
	Failed []Result
	Total  int
}

// Error names every failed host with its reason, a line each.
func (e *HostsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d of %d:", ErrHostsFailed, len(e.Failed), e.Total)
	for _, r := range e.Failed {
		fmt.Fprintf(&b, "\n  %s: %v", r.Host, r.Err)
	}
	return b.String()
}

// Unwrap returns ErrHostsFailed and every failed host's error.
func (e *HostsError) Unwrap() []error {
	out := []error{ErrHostsFailed}
	for _, r := range e.Failed {
		if r.Err != nil {
			out = append(out, r.Err)
		}
	}
	return out
}

// Hosts returns the names of the hosts that failed.
func (e *HostsError) Hosts() []string {
	out := make([]string, len(e.Failed))
	for i, r := range e.Failed {
		out[i] = r.Host
	}
	return out
}
