package deploy

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// resolvers are the ways a host is resolved from the configuration file:
// ssh -G -F file (when ssh is installed) and the parser used without ssh.
// Every option test runs under both.
func resolvers(t *testing.T, file string) map[string]sshclient.SSHResolver {
	rs := map[string]sshclient.SSHResolver{"files": sshclient.SSHFiles{Files: []string{file}, Required: true}}
	if path, err := exec.LookPath("ssh"); err == nil {
		rs["ssh -G"] = sshclient.SSHCommand{Path: path, ConfigFile: file}
	} else {
		t.Log("ssh is not installed: only the file parser is tested")
	}
	return rs
}

// writeSSHConfig writes an ssh configuration; format is filled by fmt.
func writeSSHConfig(t *testing.T, format string, args ...any) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(format, args...)), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// configOptions resolve through r and force no known_hosts file: the ssh
// configuration says which to use.
func configOptions(r sshclient.SSHResolver) Options {
	return Options{Resolver: r, Agent: "none", HelloTimeout: 30 * time.Second}
}

// knownLine is a known_hosts line trusting key for addr.
func knownLine(addr string, key ssh.PublicKey) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
}

// forEachResolver runs fn under every resolver of the configuration file.
func forEachResolver(t *testing.T, file string, fn func(t *testing.T, r sshclient.SSHResolver)) {
	for name, r := range resolvers(t, file) {
		t.Run(name, func(t *testing.T) { fn(t, r) })
	}
}

func TestSSHConfigHostNameUserPort(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	known := writeKnownHosts(t, srv)
	file := writeSSHConfig(t, "Host front\n  HostName %s\n  Port %d\n  User fuser\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		host, port, key.file, known)
	forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "front", Site: "test"}, configOptions(r)); err != nil {
			t.Fatalf("connect to the alias: %v", err)
		}
		if u := srv.user.Load(); u != "fuser" {
			t.Fatalf("server saw user %v, want fuser from the configuration", u)
		}
		// The inventory's explicit user wins, as ssh -l does.
		if err := connectOnce(t, inventory.Host{Name: "front", Site: "test", User: "inv"}, configOptions(r)); err != nil || srv.user.Load() != "inv" {
			t.Fatalf("explicit user: err %v, server saw %v", err, srv.user.Load())
		}
	})
}

func TestSSHConfigIdentityFiles(t *testing.T) {
	key := newTestKey(t, "")
	other := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	known := writeKnownHosts(t, srv)
	missing := filepath.Join(t.TempDir(), "missing")
	file := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  IdentityFile %s\n  IdentityFile %s\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		host, port, missing, other.file, key.file, known)
	forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, configOptions(r)); err != nil {
			t.Fatalf("the third identity file is the right one: %v", err)
		}
	})
	only := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  IdentityFile %s\n  UserKnownHostsFile %s\n", host, port, other.file, known)
	forEachResolver(t, only, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, configOptions(r)); err == nil {
			t.Fatal("connected with only a key the server refuses")
		}
	})
}

func TestSSHConfigCertificateFile(t *testing.T) {
	ca := newTestKey(t, "")
	key := newTestKey(t, "")
	checker := &ssh.CertChecker{IsUserAuthority: func(auth ssh.PublicKey) bool {
		return string(auth.Marshal()) == string(ca.signer.PublicKey().Marshal())
	}}
	srv := newTestServerAuth(t, "127.0.0.1", checker.Authenticate)
	cert := &ssh.Certificate{Key: key.signer.PublicKey(), CertType: ssh.UserCert, KeyId: "test",
		ValidPrincipals: []string{"tester"}, ValidBefore: ssh.CertTimeInfinity}
	if err := cert.SignCert(rand.Reader, ca.signer); err != nil {
		t.Fatal(err)
	}
	certFile := filepath.Join(t.TempDir(), "user-cert")
	if err := os.WriteFile(certFile, ssh.MarshalAuthorizedKey(cert), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port := srv.host()
	known := writeKnownHosts(t, srv)
	without := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  User tester\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		host, port, key.file, known)
	with := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  User tester\n  IdentityFile %s\n  CertificateFile %s\n  UserKnownHostsFile %s\n",
		host, port, key.file, certFile, known)
	forEachResolver(t, without, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, configOptions(r)); err == nil {
			t.Fatal("the bare key was accepted by a server that wants certificates")
		}
	})
	forEachResolver(t, with, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, configOptions(r)); err != nil {
			t.Fatalf("with the certificate: %v", err)
		}
	})
}

// startAgent serves an ssh-agent holding the private keys of files.
func startAgent(t *testing.T, files ...string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ring := agent.NewKeyring()
	for _, f := range files {
		priv, err := ssh.ParseRawPrivateKey(mustRead(t, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := ring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(ring, c); c.Close() }()
		}
	}()
	return sock
}

func TestSSHConfigIdentitiesOnly(t *testing.T) {
	key := newTestKey(t, "")
	other := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	known := writeKnownHosts(t, srv)
	sock := startAgent(t, key.file)
	for _, only := range []string{"no", "yes"} {
		file := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  IdentityFile %s\n  IdentitiesOnly %s\n  UserKnownHostsFile %s\n",
			host, port, other.file, only, known)
		forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
			opt := configOptions(r)
			opt.Agent = sock
			err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, opt)
			if only == "no" && err != nil {
				t.Fatalf("IdentitiesOnly no: the agent's key must be offered: %v", err)
			}
			if only == "yes" && err == nil {
				t.Fatal("IdentitiesOnly yes: the agent's key (not the identity file's) was offered")
			}
		})
	}
}

func TestSSHConfigProxyJumpChain(t *testing.T) {
	key := newTestKey(t, "")
	j1 := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	j2 := newTestServer(t, "127.0.0.2", key.signer.PublicKey())
	target := newTestServer(t, "127.0.0.3", key.signer.PublicKey())
	known := writeKnownHosts(t, j1, j2, target)
	h1, p1 := j1.host()
	h2, p2 := j2.host()
	ht, pt := target.host()
	// Each hop has its own user, port and host name; the chain is given by
	// aliases on the target and resolved through each hop's own block.
	file := writeSSHConfig(t, `Host node
  HostName %s
  Port %d
  User nodeuser
  ProxyJump gw1,hop@gw2
Host gw1
  HostName %s
  Port %d
  User gwuser
Host gw2
  HostName %s
  Port %d
  User ignored
Host *
  IdentityFile %s
  UserKnownHostsFile %s
`, ht, pt, h1, p1, h2, p2, key.file, known)
	forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
		f1, f2 := j1.forwards.Load(), j2.forwards.Load()
		if err := connectOnce(t, inventory.Host{Name: "node", Site: "test"}, configOptions(r)); err != nil {
			t.Fatalf("connect through the chain: %v", err)
		}
		if j1.forwards.Load() != f1+1 || j2.forwards.Load() != f2+1 {
			t.Fatalf("forwards: gw1 %d gw2 %d, want one each", j1.forwards.Load()-f1, j2.forwards.Load()-f2)
		}
		if j1.user.Load() != "gwuser" || j2.user.Load() != "hop" || target.user.Load() != "nodeuser" {
			t.Fatalf("users: gw1 %v gw2 %v node %v", j1.user.Load(), j2.user.Load(), target.user.Load())
		}
	})
}

func TestSSHConfigProxyCommand(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	known := writeKnownHosts(t, srv)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := writeSSHConfig(t, "Host viacmd\n  HostName %s\n  Port %d\n  ProxyCommand %s netcat %%h %%p\n  IdentityFile %s\n  UserKnownHostsFile %s\n"+
		"Host broken\n  HostName %s\n  Port %d\n  ProxyCommand %s netcat 127.0.0.1 1\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		host, port, self, key.file, known, host, port, self, key.file, known)
	forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
		if err := connectOnce(t, inventory.Host{Name: "viacmd", Site: "test"}, configOptions(r)); err != nil {
			t.Fatalf("connect through the proxy command: %v", err)
		}
		err := connectOnce(t, inventory.Host{Name: "broken", Site: "test"}, configOptions(r))
		if err == nil || !strings.Contains(err.Error(), "proxy command") || !strings.Contains(err.Error(), "netcat:") {
			t.Fatalf("a failing proxy command: err = %v, want its stderr", err)
		}
	})
}

func TestSSHConfigUserKnownHostsFile(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	wrong := filepath.Join(t.TempDir(), "wrong_known_hosts")
	if err := os.WriteFile(wrong, []byte(knownLine(srv.addr, newTestKey(t, "").signer.PublicKey())), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		file string
		want error
	}{
		"right entry": {file: writeKnownHosts(t, srv)},
		"wrong entry": {file: wrong, want: sshclient.ErrHostKeyChanged},
	} {
		file := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking accept-new\n",
			host, port, key.file, tc.file)
		t.Run(name, func(t *testing.T) {
			forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
				err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, configOptions(r))
				if !errors.Is(err, tc.want) || (tc.want != nil && !strings.Contains(err.Error(), tc.file)) {
					t.Fatalf("err = %v, want %v naming %s", err, tc.want, tc.file)
				}
			})
		})
	}
}

func TestSSHConfigStrictHostKeyChecking(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	host, port := srv.host()
	tests := map[string]struct {
		mode    string
		answer  *bool // the prompt's answer; nil: no prompt
		want    error
		asked   bool
		records bool
	}{
		"yes refuses without asking": {mode: "yes", answer: ptr(true), want: sshclient.ErrHostKeyUnknown},
		"accept-new records":         {mode: "accept-new", records: true},
		"ask asks":                   {mode: "ask", answer: ptr(true), asked: true, records: true},
		"ask refused":                {mode: "ask", answer: ptr(false), asked: true, want: sshclient.ErrHostKeyUnknown},
		"ask with nobody to ask":     {mode: "ask", want: sshclient.ErrHostKeyUnknown},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			known := filepath.Join(t.TempDir(), "known_hosts")
			file := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %d\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking %s\n",
				host, port, key.file, known, tc.mode)
			forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
				os.Remove(known)
				opt := configOptions(r)
				var asked atomic.Bool
				if tc.answer != nil {
					opt.ConfirmHostKey = func(string, string) bool { asked.Store(true); return *tc.answer }
				}
				err := connectOnce(t, inventory.Host{Name: "n", Site: "test"}, opt)
				if !errors.Is(err, tc.want) || asked.Load() != tc.asked {
					t.Fatalf("err = %v (want %v), asked %v (want %v)", err, tc.want, asked.Load(), tc.asked)
				}
				_, statErr := os.Stat(known)
				if recorded := statErr == nil; recorded != tc.records {
					t.Fatalf("key recorded in UserKnownHostsFile: %v, want %v", recorded, tc.records)
				}
			})
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestSSHConfigConnectTimeout(t *testing.T) {
	sl := newSilentListener(t)
	host, port := sl.hostPort()
	key := newTestKey(t, "")
	file := writeSSHConfig(t, "Host silent\n  HostName %s\n  Port %d\n  IdentityFile %s\n  ConnectTimeout 1\n  UserKnownHostsFile %s\n",
		host, port, key.file, filepath.Join(t.TempDir(), "known_hosts"))
	forEachResolver(t, file, func(t *testing.T, r sshclient.SSHResolver) {
		start := time.Now()
		err := connectOnce(t, inventory.Host{Name: "silent", Site: "test"}, configOptions(r))
		if err == nil || !strings.Contains(err.Error(), "no answer within 1s") || time.Since(start) > 8*time.Second {
			t.Fatalf("err = %v after %v, want no answer within 1s", err, time.Since(start))
		}
	})
}

func TestSSHConfigServerAliveInterval(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	for name := range resolvers(t, "") {
		t.Run(name, func(t *testing.T) {
			proxy := newFreezeProxy(t, srv.addr) // one per run: freezing is for good
			ph, pp, _ := net.SplitHostPort(proxy.ln.Addr().String())
			known := filepath.Join(t.TempDir(), "known_hosts")
			if err := os.WriteFile(known, []byte(knownLine(proxy.ln.Addr().String(), srv.hostKey.PublicKey())), 0o600); err != nil {
				t.Fatal(err)
			}
			file := writeSSHConfig(t, "Host n\n  HostName %s\n  Port %s\n  IdentityFile %s\n  UserKnownHostsFile %s\n  ServerAliveInterval 1\n  ServerAliveCountMax 2\n",
				ph, pp, key.file, known)
			p, err := sshclient.NewPool(sshInventory(), configOptions(resolvers(t, file)[name]).SSH())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			c, err := sshclient.Connect(testCtx(t), p, inventory.Host{Name: "n", Site: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if every, misses := p.KeepAlive(c); every != time.Second || misses != 2 {
				t.Fatalf("keepalive every %v after %d misses, want 1s and 2", every, misses)
			}
			proxy.freeze()
			done := make(chan struct{})
			go func() { c.Client().Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("a vanished host was not noticed within 10 s with ServerAliveInterval 1")
			}
		})
	}
}

func TestResolversAgree(t *testing.T) {
	path, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("ssh is not installed")
	}
	file := writeSSHConfig(t, `Host *.grid
  HostName %%h.example.org
  User griduser
  Port 2200
  IdentityFile /keys/a
  IdentityFile /keys/b
  CertificateFile /keys/a-cert.pub
  IdentitiesOnly yes
  ProxyJump front
  StrictHostKeyChecking accept-new
  ConnectTimeout 7
  ServerAliveInterval 9
  UserKnownHostsFile /kh/one /kh/two
Host front
  ProxyCommand nc %%h %%p
Host *
  User other
`)
	for _, q := range []sshclient.SSHQuery{{Name: "n1.grid"}, {Name: "n2.grid", User: "me", Port: 22}, {Name: "front"}, {Name: "plain.host"}} {
		t.Run(q.Name, func(t *testing.T) {
			want, err := sshclient.SSHCommand{Path: path, ConfigFile: file}.Resolve(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sshclient.SSHFiles{Files: []string{file}}.Resolve(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			// Defaults that depend on the local account differ by design
			// (ssh uses the password database, the parser $USER and $HOME).
			if want.User != "other" && want.User != "griduser" && want.User != q.User {
				want.User = got.User
			}
			got.IdentityFiles, want.IdentityFiles = filesOrDefault(got.IdentityFiles), filesOrDefault(want.IdentityFiles)
			got.UserKnownHostsFiles, want.UserKnownHostsFiles = filesOrDefault(got.UserKnownHostsFiles), filesOrDefault(want.UserKnownHostsFiles)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("file parser:\n %+v\nssh -G:\n %+v", got, want)
			}
		})
	}
}

// filesOrDefault hides the default file lists, spelt differently by ssh -G.
func filesOrDefault(files []string) []string {
	for _, f := range files {
		if strings.Contains(f, "/.ssh/") || strings.HasPrefix(f, "~/") {
			return []string{"(default)"}
		}
	}
	return files
}

// With HOME set elsewhere than the account's home (tests, containers), ssh
// must read $HOME/.ssh/config, as gridtui reads $HOME/.ssh/known_hosts.
func TestResolverFollowsHOME(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host aliased\n  HostName 192.0.2.7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hc, err := sshclient.NewSSHResolver("").Resolve(context.Background(), sshclient.SSHQuery{Name: "aliased"})
	if err != nil || hc.HostName != "192.0.2.7" {
		t.Fatalf("resolved %+v, %v: want HostName from $HOME/.ssh/config", hc, err)
	}
}

// countingResolver counts the resolutions of each name.
type countingResolver struct {
	sshclient.SSHResolver

	mu sync.Mutex
	n  map[string]int
}

func (c *countingResolver) Resolve(ctx context.Context, q sshclient.SSHQuery) (sshclient.HostConfig, error) {
	c.mu.Lock()
	c.n[q.Name]++
	c.mu.Unlock()
	return c.SSHResolver.Resolve(ctx, q)
}

// A site's frontend is resolved once per pool, not once per host behind it.
func TestFrontendResolvedOncePerPool(t *testing.T) {
	key := newTestKey(t, "")
	jump := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	targets := []*testServer{newTestServer(t, "127.0.0.2", key.signer.PublicKey()), newTestServer(t, "127.0.0.3", key.signer.PublicKey())}
	known := writeKnownHosts(t, append(targets, jump)...)
	jh, jp := jump.host()
	file := writeSSHConfig(t, "Host gw\n  HostName %s\n  Port %d\nHost *\n  IdentityFile %s\n  UserKnownHostsFile %s\n", jh, jp, key.file, known)
	r := &countingResolver{SSHResolver: sshclient.SSHFiles{Files: []string{file}}, n: map[string]int{}}
	opt := configOptions(r)
	opt.Binary = smallBinary(t, 10<<10)
	var hosts []inventory.Host
	for _, s := range targets {
		h := testHost(s, key)
		h.IdentityFiles, h.ProxyJump = nil, "gw"
		hosts = append(hosts, h)
	}
	if _, err := Deploy(testCtx(t), sshInventory(), hosts, opt); err != nil {
		t.Fatal(err)
	}
	if r.n["gw"] != 1 {
		t.Fatalf("the frontend was resolved %d times for %d hosts, want once", r.n["gw"], len(hosts))
	}
}
