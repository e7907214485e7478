package deploy

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// connectOnce opens a fresh pool and connects to h.
func connectOnce(t *testing.T, h inventory.Host, opt Options) error {
	t.Helper()
	p, err := sshclient.NewPool(sshInventory(), opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := sshclient.Connect(testCtx(t), p, h)
	if err != nil {
		return err
	}
	out, err := c.Run(testCtx(t), "echo hi")
	if err == nil && strings.TrimSpace(string(out)) != "hi" {
		t.Fatalf("echo hi printed %q", out)
	}
	return err
}

func TestHostKeyVerification(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	h := testHost(srv, key)
	fp := ssh.FingerprintSHA256(srv.hostKey.PublicKey())
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	otherKey, _ := ssh.NewSignerFromKey(other)

	tests := []struct {
		name      string
		known     string // known_hosts content
		acceptNew bool
		prompt    sshclient.HostKeyPrompt
		wantErr   error
		wantText  []string
		recorded  bool // a hashed line is added
	}{
		{name: "known", known: knownhosts.Line([]string{knownhosts.Normalize(srv.addr)}, srv.hostKey.PublicKey()) + "\n"},
		{name: "unknown refused", wantErr: sshclient.ErrHostKeyUnknown, wantText: []string{fp, "--accept-new", knownhosts.Normalize(srv.addr)}},
		{name: "unknown accepted with accept-new", acceptNew: true, recorded: true},
		{name: "accepted after a last line without newline", known: "# no newline", acceptNew: true, recorded: true},
		{name: "unknown accepted at the prompt", prompt: func(host, f string) bool { return f == fp }, recorded: true},
		{name: "unknown refused at the prompt", prompt: func(string, string) bool { return false }, wantErr: sshclient.ErrHostKeyUnknown},
		{name: "changed refused even with accept-new",
			known:     knownhosts.Line([]string{knownhosts.Normalize(srv.addr)}, otherKey.PublicKey()) + "\n",
			acceptNew: true, wantErr: sshclient.ErrHostKeyChanged, wantText: []string{fp}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ssh", "known_hosts") // missing until a key is recorded
			if tc.known != "" {
				os.MkdirAll(filepath.Dir(file), 0o700)
				os.WriteFile(file, []byte(tc.known), 0o600)
			}
			opt := testOptions(file)
			opt.AcceptNew, opt.ConfirmHostKey = tc.acceptNew, tc.prompt
			err := connectOnce(t, h, opt)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			for _, s := range tc.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			after, _ := os.ReadFile(file)
			added := strings.TrimPrefix(string(after), tc.known)
			if tc.recorded != (added != "") {
				t.Fatalf("known_hosts gained %q, want recorded=%v", added, tc.recorded)
			}
			if !tc.recorded {
				return
			}
			if tc.known != "" && !strings.HasSuffix(tc.known, "\n") {
				if !strings.HasPrefix(added, "\n") {
					t.Fatalf("recorded line %q glued to the last line %q", added, tc.known)
				}
				added = added[1:]
			}
			if !strings.HasPrefix(added, "|1|") || strings.Contains(added, "127.0.0.1") {
				t.Fatalf("recorded line %q is not hashed", added)
			}
			// A new pool, without accept-new, now trusts the recorded key.
			if err := connectOnce(t, h, testOptions(file)); err != nil {
				t.Fatalf("reconnect with the recorded key: %v", err)
			}
		})
	}
}

func TestWrongClientKeyRefused(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	h := testHost(srv, newTestKey(t, ""))
	err := connectOnce(t, h, testOptions(writeKnownHosts(t, srv)))
	if err == nil || !strings.Contains(err.Error(), "unable to authenticate") || !strings.Contains(err.Error(), srv.addr) {
		t.Fatalf("err = %v, want an authentication failure naming %s", err, srv.addr)
	}
}

func TestEncryptedKeyAsksPassphraseOnce(t *testing.T) {
	key := newTestKey(t, "s3cret")
	a := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	b := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, a, b))
	opt.Binary = smallBinary(t, 1000)
	var asked atomic.Int32
	opt.Passphrase = func(host, file string) ([]byte, error) {
		asked.Add(1)
		if file != key.file {
			t.Errorf("asked for the passphrase of %s, want %s", file, key.file)
		}
		return []byte("s3cret"), nil
	}
	if _, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{testHost(a, key), testHost(b, key)}, opt); err != nil {
		t.Fatalf("deploy with an encrypted key: %v", err)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("passphrase asked %d times for two hosts, want once", n)
	}

	opt.Passphrase = func(string, string) ([]byte, error) { return []byte("wrong"), nil }
	if err := connectOnce(t, testHost(a, key), opt); err == nil || !strings.Contains(err.Error(), key.file) {
		t.Fatalf("wrong passphrase: err = %v, want an error naming %s", err, key.file)
	}
}

func TestJumpHost(t *testing.T) {
	key := newTestKey(t, "")
	jump := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	target := newTestServer(t, "127.0.0.2", key.signer.PublicKey())
	jh, jp := jump.host()
	h := testHost(target, key)
	h.ProxyJump = "hopper@" + jh + ":" + itoa(jp)

	t.Run("verified hop", func(t *testing.T) {
		opt := testOptions(writeKnownHosts(t, jump, target))
		opt.Binary = smallBinary(t, 100<<10)
		if _, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt); err != nil {
			t.Fatalf("deploy through the jump host: %v", err)
		}
		if jump.forwards.Load() != 1 || jump.execs.Load() != 0 {
			t.Fatalf("jump host saw %d forwards and %d execs, want 1 and 0", jump.forwards.Load(), jump.execs.Load())
		}
		if target.execs.Load() == 0 {
			t.Fatal("target ran no command")
		}
		if _, err := os.Stat(filepath.Join(target.home, "work", binaryName)); err != nil {
			t.Fatalf("binary not on the target: %v", err)
		}
	})
	t.Run("unknown target behind a known jump", func(t *testing.T) {
		err := connectOnce(t, h, testOptions(writeKnownHosts(t, jump)))
		if !errors.Is(err, sshclient.ErrHostKeyUnknown) || !strings.Contains(err.Error(), "via hopper@"+jump.addr) ||
			!strings.Contains(err.Error(), target.addr) {
			t.Fatalf("err = %v, want unknown key of %s via %s", err, target.addr, jump.addr)
		}
	})
	t.Run("unknown jump", func(t *testing.T) {
		err := connectOnce(t, h, testOptions(writeKnownHosts(t, target)))
		if !errors.Is(err, sshclient.ErrHostKeyUnknown) || !strings.Contains(err.Error(), jump.addr) ||
			!strings.Contains(err.Error(), target.addr) {
			t.Fatalf("err = %v, want unknown key of the jump %s, naming both hosts", err, jump.addr)
		}
	})
}

func TestConnectTimeoutOnSilentHost(t *testing.T) {
	sl := newSilentListener(t)
	host, port := sl.hostPort()
	key := newTestKey(t, "")
	opt := testOptions(filepath.Join(t.TempDir(), "known_hosts"))
	opt.ConnectTimeout = 300 * time.Millisecond
	h := inventory.Host{Name: host, Site: "test", Port: port, User: "u", IdentityFiles: []string{key.file}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Deploy(ctx, sshInventory(), []inventory.Host{h}, opt)
	if ctx.Err() != nil {
		t.Fatal("deploy to a silent host hung until the test deadline")
	}
	r := s.Results[0]
	if err == nil || r.Phase != PhaseFailed || !errors.Is(r.Err, context.DeadlineExceeded) ||
		!strings.Contains(r.Err.Error(), "no answer") {
		t.Fatalf("result = %+v, want failed with no answer / deadline exceeded", r)
	}
}

func TestAgentAuthentication(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ring := agent.NewKeyring()
	priv, _ := ssh.ParseRawPrivateKey(mustRead(t, key.file))
	if err := ring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
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
	h := testHost(srv, key)
	// A configured identity file that is missing is an error naming it, agent or not.
	h.IdentityFiles = []string{filepath.Join(t.TempDir(), "missing")}
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Agent = sock
	if err := connectOnce(t, h, opt); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a configured identity file that is missing: err = %v, want it named", err)
	}
	h.IdentityFiles = nil // only the agent: HOME has no default key files
	t.Setenv("HOME", t.TempDir())
	if err := connectOnce(t, h, opt); err != nil {
		t.Fatalf("agent authentication: %v", err)
	}
	opt.Agent = "none"
	if err := connectOnce(t, h, opt); err == nil || !strings.Contains(err.Error(), "no ssh key") {
		t.Fatalf("without agent or key files: err = %v, want no ssh key", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A slow answer to one host's key question must not use up the connect
// timeout of that host or of the hosts whose questions wait behind it.
func TestSlowHostKeyAnswerKeepsTimeouts(t *testing.T) {
	key := newTestKey(t, "")
	a := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	b := newTestServer(t, "127.0.0.2", key.signer.PublicKey())
	opt := testOptions(filepath.Join(t.TempDir(), "known_hosts"))
	opt.ConnectTimeout = 300 * time.Millisecond
	var asked atomic.Int32
	opt.ConfirmHostKey = func(string, string) bool {
		asked.Add(1)
		time.Sleep(time.Second) // the user reads the fingerprint
		return true
	}
	p, err := sshclient.NewPool(sshInventory(), opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	errs := make(chan error, 2)
	for _, s := range []*testServer{a, b} {
		go func() {
			_, err := sshclient.Connect(testCtx(t), p, testHost(s, key))
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a host whose key was accepted failed: %v", err)
		}
	}
	if asked.Load() != 2 {
		t.Fatalf("asked %d times, want 2", asked.Load())
	}
}

// Questions about several hosts are pending at once (the console lists them
// all); one about the same address twice is asked once.
func TestHostKeyQuestionsPendingTogether(t *testing.T) {
	key := newTestKey(t, "")
	servers := []*testServer{newTestServer(t, "127.0.0.1", key.signer.PublicKey()),
		newTestServer(t, "127.0.0.2", key.signer.PublicKey()), newTestServer(t, "127.0.0.3", key.signer.PublicKey())}
	opt := testOptions(filepath.Join(t.TempDir(), "known_hosts"))
	var pending, asked atomic.Int32
	all := make(chan struct{})
	opt.ConfirmHostKey = func(string, string) bool {
		asked.Add(1)
		if pending.Add(1) == int32(len(servers)) {
			close(all)
		}
		select {
		case <-all: // every question is on screen: accept them all
			return true
		case <-time.After(5 * time.Second):
			return false
		}
	}
	p, err := sshclient.NewPool(sshInventory(), opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	errs := make(chan error, 2*len(servers))
	for _, s := range servers {
		for _, user := range []string{"u1", "u2"} { // two connections to one address
			go func() {
				h := testHost(s, key)
				h.User = user
				_, err := sshclient.Connect(testCtx(t), p, h)
				errs <- err
			}()
		}
	}
	for range 2 * len(servers) {
		if err := <-errs; err != nil {
			t.Fatalf("questions were not pending together: %v", err)
		}
	}
	if asked.Load() != int32(len(servers)) {
		t.Fatalf("asked %d times, want once per address (%d)", asked.Load(), len(servers))
	}
}

// A frontend that wants a one-time code (keyboard-interactive) gets it from
// the challenge prompt, after the key it does not accept.
func TestKeyboardInteractiveChallenge(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServerConfig(t, "127.0.0.1", &ssh.ServerConfig{
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) {
			return nil, errors.New("codes only")
		},
		KeyboardInteractiveCallback: func(_ ssh.ConnMetadata, ask ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			ans, err := ask("", "Two-factor login", []string{"Code: "}, []bool{false})
			if err != nil || len(ans) != 1 || ans[0] != "424242" {
				return nil, errors.New("wrong code")
			}
			return nil, nil
		},
	})
	h := testHost(srv, key)
	for _, tc := range []struct {
		code string
		ok   bool
	}{{"424242", true}, {"000000", false}} {
		opt := testOptions(writeKnownHosts(t, srv))
		opt.ConnectTimeout = 300 * time.Millisecond
		var asked []string
		opt.Challenge = func(host, instruction string, questions []string, echo []bool) ([]string, error) {
			asked = append(asked, host+"|"+instruction+"|"+strings.Join(questions, ","))
			time.Sleep(500 * time.Millisecond) // the user types: not counted against the timeout
			return []string{tc.code}, nil
		}
		err := connectOnce(t, h, opt)
		if (err == nil) != tc.ok || len(asked) == 0 || !strings.Contains(asked[0], "Two-factor login|Code: ") {
			t.Fatalf("code %s: err = %v, asked %q", tc.code, err, asked)
		}
	}
}
