package sshclient

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// maxJumpDepth bounds ProxyJump chains, which may loop through the
// configuration (a jump host whose own ProxyJump leads back).
const maxJumpDepth = 8

// endpoint is one SSH server to reach, resolved as OpenSSH would: who, where,
// with which keys and known_hosts files, and through which jump hosts
// (outermost first) or proxy command.
type endpoint struct {
	name     string // the name asked for (a Host alias or an address)
	user     string
	host     string // HostName
	port     int
	identity []string // from the ssh configuration: a missing file is skipped
	explicit []string // from the inventory: a missing file is an error
	certs    []string
	only     bool   // IdentitiesOnly
	proxyCmd string // ProxyCommand, tokens expanded
	known    []string
	global   []string
	strict   string
	timeout  time.Duration // ConnectTimeout (0: the pool's)
	alive    time.Duration // ServerAliveInterval (0: the pool's)
	aliveMax int
	via      []endpoint
}

// addr is "host:port", the form dialed and recorded in known_hosts.
func (e endpoint) addr() string { return net.JoinHostPort(e.host, strconv.Itoa(e.port)) }

// key identifies a pooled connection: the same server reached the same way
// as the same user.
func (e endpoint) key() string {
	var b strings.Builder
	for _, v := range e.via {
		b.WriteString(v.key())
		b.WriteString(" > ")
	}
	if e.proxyCmd != "" {
		b.WriteString("[" + e.proxyCmd + "] > ")
	}
	b.WriteString(e.user + "@" + e.addr())
	return b.String()
}

// String names the endpoint in errors and events: "user@host:port", with
// the alias first when the configuration maps it to another HostName.
func (e endpoint) String() string {
	s := e.user + "@" + e.addr()
	if e.name != "" && e.name != e.host {
		return e.name + " (" + s + ")"
	}
	return s
}

// defaultUser is the local user name, OpenSSH's default.
func defaultUser() string {
	for _, v := range []string{"USER", "LOGNAME"} {
		if u := os.Getenv(v); u != "" {
			return u
		}
	}
	return "root"
}

// hostEndpoint resolves h through r: the inventory's explicit user, port and
// frontend win (like ssh -l, -p, -J), the ssh configuration says the rest.
// Every jump host is resolved through its own configuration, as ssh -J does.
func hostEndpoint(ctx context.Context, r SSHResolver, h inventory.Host) (endpoint, error) {
	if h.Name == "" {
		return endpoint{}, fmt.Errorf("deploy: host with no name in cluster %s", h.Cluster)
	}
	q := SSHQuery{Name: h.Name, User: h.User, Port: h.Port, ProxyJump: strings.TrimSpace(h.ProxyJump)}
	return resolveEndpoint(ctx, r, q, h.IdentityFiles, 0)
}

func resolveEndpoint(ctx context.Context, r SSHResolver, q SSHQuery, explicit []string, depth int) (endpoint, error) {
	if depth > maxJumpDepth {
		return endpoint{}, fmt.Errorf("deploy: host %s: proxy jump chain deeper than %d hops (a loop in the ssh configuration?)", q.Name, maxJumpDepth)
	}
	hc, err := r.Resolve(ctx, q)
	if err != nil {
		return endpoint{}, err
	}
	e := endpoint{name: q.Name, user: hc.User, host: hc.HostName, port: hc.Port,
		identity: hc.IdentityFiles, explicit: explicit, certs: hc.CertificateFiles, only: hc.IdentitiesOnly,
		known: hc.UserKnownHostsFiles, global: hc.GlobalKnownHostsFiles, strict: hc.StrictHostKeyChecking,
		timeout: hc.ConnectTimeout, alive: hc.ServerAliveInterval, aliveMax: hc.ServerAliveCountMax}
	if e.user == "" {
		e.user = defaultUser()
	}
	if e.port == 0 {
		e.port = inventory.DefaultPort
	}
	if hc.ProxyJump != "" {
		e.via, err = jumpChain(ctx, r, q.Name, hc.ProxyJump, explicit, depth)
		return e, err
	}
	if hc.ProxyCommand != "" {
		e.proxyCmd = expandTokens(hc.ProxyCommand, e)
	}
	return e, nil
}

// jumpChain resolves "hop1,hop2,...": the first hop through its own
// configuration (its own jump hosts included), each later hop reached
// through the previous one, as ssh -J does.
func jumpChain(ctx context.Context, r SSHResolver, name, pj string, explicit []string, depth int) ([]endpoint, error) {
	var prev *endpoint
	for _, hop := range strings.Split(pj, ",") {
		q, err := ParseHop(strings.TrimSpace(hop))
		if err != nil {
			return nil, fmt.Errorf("deploy: host %s: proxy jump %q: %w", name, pj, err)
		}
		if prev != nil {
			q.ProxyJump = "none"
		}
		j, err := resolveEndpoint(ctx, r, q, explicit, depth+1)
		if err != nil {
			return nil, fmt.Errorf("deploy: host %s: jump host %s: %w", name, q.Name, err)
		}
		if prev != nil {
			j.via = append(append([]endpoint(nil), prev.via...), *prev)
		}
		prev = &j
	}
	return append(append([]endpoint(nil), prev.via...), *prev), nil
}

// ParseHop parses "[user@]host[:port]" (IPv6 hosts in brackets) into a query;
// "ssh://[user@]host[:port]" is accepted too, as by ssh.
func ParseHop(s string) (SSHQuery, error) {
	var q SSHQuery
	s = strings.TrimPrefix(s, "ssh://")
	if s == "" {
		return q, fmt.Errorf("empty hop")
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		q.User, s = s[:i], s[i+1:]
		if q.User == "" {
			return q, fmt.Errorf("empty user in hop")
		}
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// No port: a plain name or a bracketed IPv6 address.
		q.Name = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	} else {
		p, perr := strconv.Atoi(port)
		if perr != nil || p <= 0 || p > 65535 {
			return q, fmt.Errorf("bad port %q", port)
		}
		q.Name, q.Port = host, p
	}
	if q.Name == "" || strings.ContainsAny(q.Name, " /") || strings.HasPrefix(q.Name, "-") {
		return q, fmt.Errorf("bad host %q", q.Name)
	}
	return q, nil
}

// expandTokens expands the ProxyCommand tokens %h, %p, %r, %n and %%.
func expandTokens(cmd string, e endpoint) string {
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		if cmd[i] != '%' || i+1 == len(cmd) {
			b.WriteByte(cmd[i])
			continue
		}
		i++
		switch cmd[i] {
		case 'h':
			b.WriteString(e.host)
		case 'p':
			b.WriteString(strconv.Itoa(e.port))
		case 'r':
			b.WriteString(e.user)
		case 'n':
			b.WriteString(e.name)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(cmd[i])
		}
	}
	return b.String()
}

// Route says how h is reached once the ssh configuration is applied:
// "user@hostname:port", then " via " and each jump host, or " through" the
// proxy command. It is what `gridtui sites` shows.
func Route(ctx context.Context, r SSHResolver, h inventory.Host) (string, error) {
	e, err := hostEndpoint(ctx, r, h)
	if err != nil {
		return "", err
	}
	s := e.user + "@" + e.addr()
	for i, v := range e.via {
		if i == 0 {
			s += " via "
		} else {
			s += " > "
		}
		s += v.String()
	}
	if e.proxyCmd != "" {
		s += " through `" + e.proxyCmd + "`"
	}
	return s, nil
}
