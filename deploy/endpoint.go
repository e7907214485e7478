package deploy

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// endpoint is one SSH server to reach: who, where, and through which jump
// hosts (outermost first).
type endpoint struct {
	user     string
	host     string
	port     int
	identity []string
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
	b.WriteString(e.user + "@" + e.addr())
	return b.String()
}

// String names the endpoint in errors and events: "user@host:port".
func (e endpoint) String() string { return e.user + "@" + e.addr() }

// defaultUser is the local user name, OpenSSH's default.
func defaultUser() string {
	for _, v := range []string{"USER", "LOGNAME"} {
		if u := os.Getenv(v); u != "" {
			return u
		}
	}
	return "root"
}

// hostEndpoint resolves h into an endpoint, parsing its ProxyJump chain
// ("[user@]host[:port]" hops separated by commas; "none" means direct). Jump
// hosts inherit h's identity files; their user defaults to h's.
func hostEndpoint(h Host) (endpoint, error) {
	e := endpoint{user: h.User, host: h.Name, port: h.Port, identity: h.IdentityFiles}
	if e.user == "" {
		e.user = defaultUser()
	}
	if e.port == 0 {
		e.port = 22
	}
	if e.host == "" {
		return endpoint{}, fmt.Errorf("deploy: host with no name in cluster %s", h.Cluster)
	}
	pj := strings.TrimSpace(h.ProxyJump)
	if pj == "" || pj == "none" {
		return e, nil
	}
	for _, hop := range strings.Split(pj, ",") {
		j, err := parseHop(strings.TrimSpace(hop), e.user)
		if err != nil {
			return endpoint{}, fmt.Errorf("deploy: host %s: proxy jump %q: %w", h.Name, pj, err)
		}
		j.identity = h.IdentityFiles
		j.via = append([]endpoint(nil), e.via...)
		e.via = append(e.via, j)
	}
	return e, nil
}

// parseHop parses "[user@]host[:port]" (IPv6 hosts in brackets).
func parseHop(s, user string) (endpoint, error) {
	e := endpoint{user: user, port: 22}
	if s == "" {
		return e, fmt.Errorf("empty hop")
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		e.user, s = s[:i], s[i+1:]
		if e.user == "" {
			return e, fmt.Errorf("empty user in hop")
		}
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// No port: a plain name or a bracketed IPv6 address.
		e.host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	} else {
		p, perr := strconv.Atoi(port)
		if perr != nil || p <= 0 || p > 65535 {
			return e, fmt.Errorf("bad port %q", port)
		}
		e.host, e.port = host, p
	}
	if e.host == "" || strings.ContainsAny(e.host, " /") {
		return e, fmt.Errorf("bad host %q", e.host)
	}
	return e, nil
}
