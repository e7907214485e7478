package deploy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// testCtx is a context with a generous deadline: tests never hang.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// smallBinary writes a non-ELF file to ship (shipped as is).
func smallBinary(t *testing.T, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "payload")
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func fileSum(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// eventLog records events for assertions.
type eventLog struct {
	mu sync.Mutex
	ev []Event
}

func (l *eventLog) add(e Event) { l.mu.Lock(); l.ev = append(l.ev, e); l.mu.Unlock() }

func (l *eventLog) phases(host string) []Phase {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Phase
	for _, e := range l.ev {
		if e.Host == host && (len(out) == 0 || out[len(out)-1] != e.Phase) {
			out = append(out, e.Phase)
		}
	}
	return out
}

func TestDeployUploadThenSkipUnchanged(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Binary = smallBinary(t, 3<<20+17)
	opt.NoCompress = true // over SFTP: every byte counted
	var log eventLog
	opt.Events = log.add
	h := testHost(srv, key)

	s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
	if err != nil {
		t.Fatalf("first deploy: %v", err)
	}
	if r := s.Results[0]; r.Phase != PhaseReady || r.Bytes != 3<<20+17 {
		t.Fatalf("first deploy result = %+v, want ready with %d bytes", r, 3<<20+17)
	}
	remote := filepath.Join(srv.home, "work", binaryName)
	if got, want := fileSum(t, remote), fileSum(t, opt.Binary); got != want {
		t.Fatalf("remote sha256 %s, want %s", got, want)
	}
	if st, _ := os.Stat(remote); st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("remote binary mode %v is not executable", st.Mode())
	}
	want := []Phase{PhaseConnect, PhaseCheck, PhaseUpload, PhaseVerify, PhaseReady}
	if got := log.phases(h.Name); !equalPhases(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}

	s, err = Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
	if err != nil {
		t.Fatalf("second deploy: %v", err)
	}
	if r := s.Results[0]; r.Phase != PhaseReady || r.Bytes != 0 || r.Detail != "unchanged" {
		t.Fatalf("second deploy result = %+v, want unchanged with no upload", r)
	}
}

func equalPhases(a, b []Phase) bool {
	return strings.Join(phaseStrings(a), ",") == strings.Join(phaseStrings(b), ",")
}

func phaseStrings(p []Phase) []string {
	out := make([]string, len(p))
	for i, x := range p {
		out[i] = string(x)
	}
	return out
}

func TestDeployBrokenUploadLeavesOldBinary(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Binary = smallBinary(t, 4<<20)
	opt.NoCompress = true // SFTP is what breaks
	h := testHost(srv, key)
	dir := filepath.Join(srv.home, "work")
	os.MkdirAll(dir, 0o755)
	final := filepath.Join(dir, binaryName)
	os.WriteFile(final, []byte("old version\n"), 0o755)

	srv.breakAfter.Store(1 << 20) // the network goes away after 1 MiB
	s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
	if err == nil || s.Results[0].Phase != PhaseFailed {
		t.Fatalf("deploy over a broken connection succeeded: %+v", s.Results[0])
	}
	if b, _ := os.ReadFile(final); string(b) != "old version\n" {
		t.Fatalf("after a broken upload the binary holds %d bytes, want the old version intact", len(b))
	}

	srv.breakAfter.Store(0)
	if _, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt); err != nil {
		t.Fatalf("redeploy after the break: %v", err)
	}
	if got, want := fileSum(t, final), fileSum(t, opt.Binary); got != want {
		t.Fatalf("after redeploy remote sha256 %s, want %s", got, want)
	}
	left, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*"))
	if len(left) != 0 {
		t.Fatalf("temporaries left after redeploy: %v", left)
	}
}

func TestDeployCancelMidUpload(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Binary = smallBinary(t, 8<<20)
	ctx, cancel := context.WithCancel(testCtx(t))
	opt.Events = func(e Event) {
		if e.Phase == PhaseUpload && e.Progress > 0.2 {
			cancel()
		}
	}
	s, _ := Deploy(ctx, sshInventory(), []inventory.Host{testHost(srv, key)}, opt)
	if r := s.Results[0]; r.Phase != PhaseFailed || !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("cancelled deploy result = %+v, want failed with context.Canceled", r)
	}
	if _, err := os.Stat(filepath.Join(srv.home, "work", binaryName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cancelled upload left a binary in place (stat err %v)", err)
	}
}

func TestDeployFanOutReportsEveryFailure(t *testing.T) {
	key := newTestKey(t, "")
	a := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	b := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	other := newTestKey(t, "")
	c := newTestServer(t, "127.0.0.1", other.signer.PublicKey()) // refuses our key
	opt := testOptions(writeKnownHosts(t, a, b, c))
	opt.Binary = smallBinary(t, 1<<20)
	opt.Width = 2
	dead := inventory.Host{Name: "127.0.0.1", Site: "test", Port: closedPort(t), User: "tester",
		IdentityFiles: []string{key.file}, Workdir: "work"}
	hosts := []inventory.Host{testHost(a, key), dead, testHost(b, key), testHost(c, key)}

	s, err := Deploy(testCtx(t), sshInventory(), hosts, opt)
	if !errors.Is(err, ErrHostsFailed) {
		t.Fatalf("err = %v, want ErrHostsFailed", err)
	}
	wantPhase := []Phase{PhaseReady, PhaseFailed, PhaseReady, PhaseFailed}
	for i, r := range s.Results {
		if r.Phase != wantPhase[i] {
			t.Errorf("host %d: %s %v, want %s", i, r.Phase, r.Err, wantPhase[i])
		}
	}
	if f := s.Failed(); len(f) != 2 || !strings.Contains(f[0].Err.Error(), "connection refused") ||
		!strings.Contains(f[1].Err.Error(), "unable to authenticate") {
		t.Fatalf("failures = %+v, want connection refused and an auth failure", f)
	}
	for _, want := range []string{hosts[1].Name, "connection refused", "unable to authenticate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("summary error %q does not mention %q", err, want)
		}
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	srv := newSilentListener(t)
	_, p := srv.hostPort()
	srv.ln.Close()
	return p
}

func TestWorkerOverSSHLifecycle(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	h := testHost(srv, key)
	inv := sshInventory()
	pool, err := sshclient.NewPool(inv, opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	opt.Pool = pool
	if _, err := Deploy(testCtx(t), inv, []inventory.Host{h}, opt); err != nil {
		t.Fatalf("deploy the test binary: %v", err)
	}
	ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	srv.mu.Lock()
	conns := len(srv.conns)
	srv.mu.Unlock()
	if conns != 1 {
		t.Fatalf("deploy and start used %d SSH connections, want 1 reused", conns)
	}
	w := ws[0]
	if w.Hello.Node != "n-"+h.Name || w.Hello.PID <= 0 || len(w.Hello.Listen) != 1 {
		t.Fatalf("hello = %+v", w.Hello)
	}
	if !alive(w.Hello.PID) {
		t.Fatalf("worker pid %d not running after hello", w.Hello.PID)
	}
	pid, _ := os.ReadFile(filepath.Join(srv.home, "work", pidFile(w.Hello.Node)))
	if f := strings.Fields(string(pid)); len(f) != 2 || f[0] != itoa(w.Hello.PID) {
		t.Fatalf("pid file holds %q, worker pid is %d", pid, w.Hello.PID)
	}
	if err := w.Stop(testCtx(t)); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if w.Err() != nil {
		t.Fatalf("stopped worker Err = %v, want nil", w.Err())
	}
	waitGone(t, w.Hello.PID)
}

func TestWorkerExitsWhenSessionCloses(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	h := testHost(srv, key)
	inv := sshInventory()
	if _, err := Deploy(testCtx(t), inv, []inventory.Host{h}, opt); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	pool, err := sshclient.NewPool(inv, opt.SSH())
	if err != nil {
		t.Fatal(err)
	}
	opt.Pool = pool
	ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	pool.Close() // the console goes away: the connection drops
	select {
	case <-ws[0].Done():
	case <-time.After(30 * time.Second):
		t.Fatal("worker not done 30 s after its connection closed")
	}
	if !errors.Is(ws[0].Err(), ErrWorkerExited) {
		t.Fatalf("Err = %v, want ErrWorkerExited (it was not stopped)", ws[0].Err())
	}
	waitGone(t, ws[0].Hello.PID)
}

func testBoot(h inventory.Host) Boot {
	return Boot{Node: "n-" + h.Name, RunID: [16]byte{1, 2, 3}, Secret: []byte("0123456789abcdef0123"),
		Listen: []string{"tcp://127.0.0.1:0"}, Cores: 1, Cluster: h.Cluster}
}

func alive(pid int) bool { return syscallKill(pid) == nil }

// waitGone waits (generously) until pid no longer exists.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRedeployDetectsChangedBinary(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, final, record string)
	}{
		{name: "binary rewritten in place, same size", tamper: func(t *testing.T, final, _ string) {
			b, _ := os.ReadFile(final)
			b[100] ^= 0xff
			if err := os.WriteFile(final, b, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "record consulted: a wrong recorded sum forces an upload", tamper: func(t *testing.T, _, record string) {
			b, _ := os.ReadFile(record)
			if len(b) < 64 {
				t.Fatalf("no sum record after a deploy: %q", b)
			}
			copy(b, strings.Repeat("0", 64))
			os.WriteFile(record, b, 0o644)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := newTestKey(t, "")
			srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
			opt := testOptions(writeKnownHosts(t, srv))
			opt.Binary = smallBinary(t, 200<<10)
			opt.NoCompress = true // a full upload is every byte
			h := testHost(srv, key)
			if _, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt); err != nil {
				t.Fatal(err)
			}
			final := filepath.Join(srv.home, "work", binaryName)
			tc.tamper(t, final, filepath.Join(srv.home, "work", sumRecord))
			s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if err != nil || s.Results[0].Bytes != 200<<10 {
				t.Fatalf("redeploy after tampering: %+v, %v; want a full upload", s.Results[0], err)
			}
			if got, want := fileSum(t, final), fileSum(t, opt.Binary); got != want {
				t.Fatalf("remote sha256 %s, want %s", got, want)
			}
		})
	}
}

// Hosts of a cluster often share their home directory (NFS): concurrent
// uploads into one work directory must not remove each other's temporaries.
func TestDeploySharedWorkdir(t *testing.T) {
	key := newTestKey(t, "")
	a := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	b := newTestServer(t, "127.0.0.2", key.signer.PublicKey())
	b.home = a.home
	opt := testOptions(writeKnownHosts(t, a, b))
	opt.Binary = smallBinary(t, 4<<20)
	for round := range 3 {
		os.RemoveAll(filepath.Join(a.home, "work"))
		s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{testHost(a, key), testHost(b, key)}, opt)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got, want := fileSum(t, filepath.Join(a.home, "work", binaryName)), fileSum(t, opt.Binary); got != want {
			t.Fatalf("round %d: shared binary sha256 %s, want %s (%+v)", round, got, want, s.Results)
		}
	}
}

// A host that vanishes from the network (no RST, no FIN) is noticed by the
// keepalives: its worker is reported gone with an error.
func TestKeepaliveDetectsVanishedHost(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	inv := sshInventory()
	if _, err := Deploy(testCtx(t), inv, []inventory.Host{testHost(srv, key)}, opt); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	proxy := newFreezeProxy(t, srv.addr)
	h := testHost(srv, key)
	ph, pp, _ := net.SplitHostPort(proxy.ln.Addr().String())
	h.Name, h.Port = ph, atoi(pp)
	known := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(known, []byte(knownhosts.Line([]string{knownhosts.Normalize(proxy.ln.Addr().String())}, srv.hostKey.PublicKey())+"\n"), 0o600)
	opt = testOptions(known)
	opt.KeepAlive = time.Second // 3 misses: a healthy but loaded connection never stalls that long
	ws, err := StartWorkers(testCtx(t), inv, []inventory.Host{h}, testBoot, opt)
	if err != nil {
		t.Fatalf("start through the proxy: %v", err)
	}
	proxy.freeze()
	select {
	case <-ws[0].Done():
	case <-time.After(30 * time.Second):
		t.Fatal("vanished host not noticed within 30 s with 1 s keepalives")
	}
	if !errors.Is(ws[0].Err(), ErrWorkerExited) {
		t.Fatalf("Err = %v, want ErrWorkerExited", ws[0].Err())
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// Many nodes behind one SSH endpoint share its connection, and a server
// enforcing sshd's MaxSessions 10 never fails any of them.
func TestSessionsStayUnderMaxSessions(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	opt := testOptions(writeKnownHosts(t, srv))
	opt.Binary = smallBinary(t, 512<<10)
	var hosts []inventory.Host
	for i := range 14 {
		h := testHost(srv, key)
		h.Workdir = "work" + itoa(i)
		hosts = append(hosts, h)
	}
	s, err := Deploy(testCtx(t), sshInventory(), hosts, opt)
	if err != nil {
		t.Fatalf("deploy 14 nodes on one endpoint: %v", err)
	}
	// The server refuses an 11th session; the client keeps at most 8 open,
	// and sessions it has just closed may linger on the server for a moment.
	if got := srv.maxOpen.Load(); got < 2 {
		t.Fatalf("at most %d sessions open at once: no parallelism", got)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.conns) != 1 || len(s.Results) != 14 {
		t.Fatalf("%d connections for 14 nodes of one endpoint, want 1", len(srv.conns))
	}
}
