package deploy

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// testServer is an in-process SSH server on a loopback address that runs
// exec requests with `sh -c` in its own home directory, serves SFTP there and
// forwards direct-tcpip channels to loopback addresses (a jump host).
type testServer struct {
	t       testing.TB
	addr    string
	home    string
	hostKey ssh.Signer
	ln      net.Listener
	cfg     *ssh.ServerConfig

	breakAfter atomic.Int64 // close the connection after this many SFTP bytes in (0: never)
	forwards   atomic.Int32 // direct-tcpip channels opened
	execs      atomic.Int32
	user       atomic.Value // the user name of the last connection
	noSFTP     atomic.Bool  // refuse the sftp subsystem
	env        []string     // extra environment of commands (set before use)
	// cred, when set, runs commands as another user (set before use).
	cred *syscall.Credential
	// ignoreSignals makes the server ignore signal requests, as OpenSSH's
	// sshd before 8.1 does.
	ignoreSignals bool
	// agentForwarding lets sessions ask for the client's agent, as sshd's
	// AllowAgentForwarding does.
	agentForwarding atomic.Bool
	open            atomic.Int32 // session channels open now
	maxOpen         atomic.Int32 // the most ever open at once on one server

	mu    sync.Mutex
	conns []net.Conn
	pgids []int
	wg    sync.WaitGroup
}

// newTestServer starts a server on ip:0 accepting only the client key.
func newTestServer(t testing.TB, ip string, client ssh.PublicKey) *testServer {
	t.Helper()
	return newTestServerAuth(t, ip, func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(client.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("key not authorized")
	})
}

// newTestServerAuth starts a server on ip:0 whose public key
// authentication is auth.
func newTestServerAuth(t testing.TB, ip string, auth func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error)) *testServer {
	t.Helper()
	return newTestServerConfig(t, ip, &ssh.ServerConfig{PublicKeyCallback: auth})
}

// newTestServerConfig starts a server on ip:0 with cfg (a host key is added).
func newTestServerConfig(t testing.TB, ip string, cfg *ssh.ServerConfig) *testServer {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	hk, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, addr: ln.Addr().String(), home: t.TempDir(), hostKey: hk, ln: ln}
	s.cfg = cfg
	s.cfg.AddHostKey(hk)
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.close)
	return s
}

func (s *testServer) host() (string, int) {
	h, p, _ := net.SplitHostPort(s.addr)
	port, _ := strconv.Atoi(p)
	return h, port
}

func (s *testServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	for _, g := range s.pgids {
		syscall.Kill(-g, syscall.SIGKILL)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *testServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.handleConn(c)
	}
}

func (s *testServer) handleConn(c net.Conn) {
	defer s.wg.Done()
	sc, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if err != nil {
		c.Close()
		return
	}
	defer sc.Close()
	s.user.Store(sc.User())
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		switch nc.ChannelType() {
		case "session":
			// Like sshd's default MaxSessions 10 (per server here, which is
			// stricter: tests use one connection per server).
			if n := s.open.Add(1); n > 10 {
				s.open.Add(-1)
				nc.Reject(ssh.Prohibited, "open failed: MaxSessions")
				continue
			} else {
				for m := s.maxOpen.Load(); n > m && !s.maxOpen.CompareAndSwap(m, n); m = s.maxOpen.Load() {
				}
			}
			ch, creqs, err := nc.Accept()
			if err != nil {
				s.open.Add(-1)
				continue
			}
			s.wg.Add(1)
			go s.session(c, sc, ch, creqs)
		case "direct-tcpip":
			s.forward(nc)
		default:
			nc.Reject(ssh.UnknownChannelType, "no")
		}
	}
}

// forward serves a direct-tcpip channel to a loopback address only.
func (s *testServer) forward(nc ssh.NewChannel) {
	var p struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := ssh.Unmarshal(nc.ExtraData(), &p); err != nil {
		nc.Reject(ssh.ConnectionFailed, "bad payload")
		return
	}
	ip := net.ParseIP(p.Host)
	if ip == nil || !ip.IsLoopback() {
		nc.Reject(ssh.Prohibited, "loopback only")
		return
	}
	tc, err := net.Dial("tcp", net.JoinHostPort(p.Host, strconv.Itoa(int(p.Port))))
	if err != nil {
		nc.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		tc.Close()
		return
	}
	s.forwards.Add(1)
	go ssh.DiscardRequests(reqs)
	go func() { io.Copy(tc, ch); tc.(*net.TCPConn).CloseWrite() }()
	go func() { io.Copy(ch, tc); ch.Close(); tc.Close() }()
}

// session handles exec, the sftp subsystem and signals, as sshd does; when
// the channel closes, the command's stdin sees EOF.
func (s *testServer) session(conn net.Conn, sc ssh.Conn, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer s.wg.Done()
	defer s.open.Add(-1)
	defer ch.Close()
	var pgid atomic.Int64
	var env []string
	for req := range reqs {
		switch req.Type {
		case "auth-agent-req@openssh.com":
			if !s.agentForwarding.Load() {
				req.Reply(false, nil)
				continue
			}
			sock, stop, err := serveForwardedAgent(sc)
			if err != nil {
				req.Reply(false, nil)
				continue
			}
			defer stop()
			env = append(env, "SSH_AUTH_SOCK="+sock)
			req.Reply(true, nil)
		case "exec":
			var p struct{ Command string }
			if ssh.Unmarshal(req.Payload, &p) != nil {
				req.Reply(false, nil)
				continue
			}
			req.Reply(true, nil)
			s.execs.Add(1)
			go s.exec(ch, p.Command, &pgid, env)
		case "subsystem":
			var p struct{ Name string }
			if ssh.Unmarshal(req.Payload, &p) != nil || p.Name != "sftp" || s.noSFTP.Load() {
				req.Reply(false, nil)
				continue
			}
			req.Reply(true, nil)
			go s.sftp(conn, ch)
		case "signal":
			if g := pgid.Load(); g > 0 && !s.ignoreSignals {
				syscall.Kill(-int(g), syscall.SIGKILL)
			}
			req.Reply(true, nil)
		default:
			req.Reply(false, nil)
		}
	}
}

func (s *testServer) exec(ch ssh.Channel, command string, pgid *atomic.Int64, env []string) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = s.home
	cmd.Env = append(append(append(os.Environ(), "HOME="+s.home), s.env...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	cmd.Stdout = ch
	cmd.Stderr = ch.Stderr()
	stdin, _ := cmd.StdinPipe()
	code := 127
	if err := cmd.Start(); err == nil {
		pgid.Store(int64(cmd.Process.Pid))
		s.mu.Lock()
		s.pgids = append(s.pgids, cmd.Process.Pid)
		s.mu.Unlock()
		go func() { io.Copy(stdin, ch); stdin.Close() }()
		err = cmd.Wait()
		code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
			if code < 0 {
				code = 137
			}
		}
	}
	ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
	ch.Close()
}

// serveForwardedAgent listens on a Unix socket whose every connection is
// an auth-agent@openssh.com channel to the client, as sshd does for a
// session with agent forwarding; stop removes it.
func serveForwardedAgent(sc ssh.Conn) (string, func(), error) {
	dir, err := os.MkdirTemp("", "agent")
	if err != nil {
		return "", nil, err
	}
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				ch, reqs, err := sc.OpenChannel("auth-agent@openssh.com", nil)
				if err != nil {
					return
				}
				go ssh.DiscardRequests(reqs)
				go func() { io.Copy(ch, c); ch.CloseWrite() }()
				io.Copy(c, ch)
				ch.Close()
			}()
		}
	}()
	return sock, func() { ln.Close(); os.RemoveAll(dir) }, nil
}

// breakingChannel closes the whole connection after limit bytes came in:
// a network cut in the middle of an upload.
type breakingChannel struct {
	ssh.Channel
	conn  net.Conn
	limit int64
	n     int64
}

func (b *breakingChannel) Read(p []byte) (int, error) {
	n, err := b.Channel.Read(p)
	b.n += int64(n)
	if b.limit > 0 && b.n > b.limit {
		b.conn.Close()
		return 0, io.ErrUnexpectedEOF
	}
	return n, err
}

func (s *testServer) sftp(conn net.Conn, ch ssh.Channel) {
	var rwc io.ReadWriteCloser = ch
	if lim := s.breakAfter.Load(); lim > 0 {
		rwc = &breakingChannel{Channel: ch, conn: conn, limit: lim}
	}
	srv, err := sftp.NewServer(rwc, sftp.WithServerWorkingDirectory(s.home))
	if err != nil {
		ch.Close()
		return
	}
	srv.Serve()
	srv.Close()
	ch.Close()
}

// testKey is a client identity written to a file.
type testKey struct {
	signer ssh.Signer
	file   string
}

// newTestKey writes a fresh ed25519 key (encrypted when pass is non-empty).
func newTestKey(t testing.TB, pass string) testKey {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	var blk *pem.Block
	var err error
	if pass == "" {
		blk, err = ssh.MarshalPrivateKey(priv, "test")
	} else {
		blk, err = ssh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(pass))
	}
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(file, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := ssh.NewSignerFromKey(priv)
	return testKey{signer: s, file: file}
}

// writeKnownHosts writes a known_hosts file trusting the given servers.
func writeKnownHosts(t testing.TB, servers ...*testServer) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "known_hosts")
	var b []byte
	for _, s := range servers {
		b = append(b, knownhosts.Line([]string{knownhosts.Normalize(s.addr)}, s.hostKey.PublicKey())+"\n"...)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// testHost is the inventory Host for s.
func testHost(s *testServer, key testKey) inventory.Host {
	h, p := s.host()
	return inventory.Host{Name: h, Site: "test", Cluster: "c", User: "tester", Port: p,
		IdentityFiles: []string{key.file}, Workdir: "work"}
}

// sshInventory is an inventory with one ssh site named "test".
func sshInventory() *inventory.Inventory {
	return &inventory.Inventory{Sites: []inventory.Site{{Name: "test", Launcher: inventory.LauncherSSH}}}
}

// testOptions are options that never touch the user's agent or known_hosts.
func testOptions(known string) Options {
	return Options{KnownHosts: known, SSHConfig: "none", Agent: "none", ConnectTimeout: 20 * time.Second, HelloTimeout: 30 * time.Second}
}

// silentListener accepts connections and never says anything: a host whose
// sshd hangs.
type silentListener struct {
	ln net.Listener
	mu sync.Mutex
	cs []net.Conn
}

func newSilentListener(t *testing.T) *silentListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentListener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.cs = append(s.cs, c)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.cs {
			c.Close()
		}
		s.mu.Unlock()
	})
	return s
}

func (s *silentListener) hostPort() (string, int) {
	h, p, _ := net.SplitHostPort(s.ln.Addr().String())
	port, _ := strconv.Atoi(p)
	return h, port
}

func syscallKill(pid int) error { return syscall.Kill(pid, 0) }

func itoa(n int) string { return strconv.Itoa(n) }

// freezeProxy forwards TCP to a server until frozen; then it stops moving
// bytes without closing anything: a host that went away on the network.
type freezeProxy struct {
	ln     net.Listener
	frozen chan struct{}
	once   sync.Once
}

func newFreezeProxy(t testing.TB, target string) *freezeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezeProxy{ln: ln, frozen: make(chan struct{})}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			go p.pipe(u, c)
			go p.pipe(c, u)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return p
}

func (p *freezeProxy) freeze() { p.once.Do(func() { close(p.frozen) }) }

func (p *freezeProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-p.frozen:
			return // drop it, and read no more: the peer's writes stall
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
