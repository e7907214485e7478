package deploy

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// relayGrid is three hosts of one site with the test binary (which serves
// `relay`, see TestMain) to ship.
func relayGrid(t *testing.T, agent bool) ([]*testServer, []inventory.Host, Options, *eventLog) {
	t.Helper()
	key := newTestKey(t, "")
	var srvs []*testServer
	var hosts []inventory.Host
	for _, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		s := newTestServer(t, ip, key.signer.PublicKey())
		s.agentForwarding.Store(agent)
		srvs = append(srvs, s)
		hosts = append(hosts, testHost(s, key))
	}
	opt := testOptions(writeKnownHosts(t, srvs...))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opt.Binary = exe
	log := &eventLog{}
	opt.Events = log.add
	return srvs, hosts, opt, log
}

// The first host of a site gets the binary from the console and relays it
// to the others; a host that already has it is the seed of a later deploy.
func TestDeployRelay(t *testing.T) {
	srvs, hosts, opt, log := relayGrid(t, true)
	defer func() {
		if t.Failed() {
			for _, e := range log.ev {
				t.Log(e.Host, e.Phase, e.Detail, e.Err)
			}
		}
	}()
	s, err := Deploy(testCtx(t), sshInventory(), hosts, opt)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	seed := hosts[0].Name
	for i, r := range s.Results {
		from := strings.Contains(r.Detail, "from "+seed)
		if r.Phase != PhaseReady || from != (i > 0) {
			t.Errorf("%s: %+v, want ready, relayed from %s unless it is %s", r.Host, r, seed, seed)
		}
		if got, want := fileSum(t, filepath.Join(srvs[i].home, "work", binaryName)), fileSum(t, opt.Binary); got != want {
			t.Errorf("%s: sha256 %s, want %s", r.Host, got, want)
		}
	}
	// The seed is now a host that has the binary: the last one.
	for _, srv := range srvs[:2] {
		os.RemoveAll(filepath.Join(srv.home, "work"))
	}
	s, err = Deploy(testCtx(t), sshInventory(), hosts, opt)
	if err != nil {
		t.Fatalf("second deploy: %v", err)
	}
	for i, r := range s.Results[:2] {
		if !strings.Contains(r.Detail, "from "+hosts[2].Name) {
			t.Errorf("second deploy, %s: %+v, want relayed from %s", hosts[i].Name, r, hosts[2].Name)
		}
	}
	if r := s.Results[2]; r.Detail != "unchanged" {
		t.Errorf("second deploy, seed %s: %+v, want unchanged", r.Host, r)
	}
}

// Without agent forwarding the relay cannot log in: every host gets the
// binary from the console, and the events say why.
func TestDeployRelayRefused(t *testing.T) {
	srvs, hosts, opt, log := relayGrid(t, false)
	s, err := Deploy(testCtx(t), sshInventory(), hosts, opt)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	for i, r := range s.Results {
		if r.Phase != PhaseReady || strings.Contains(r.Detail, "from") {
			t.Errorf("%s: %+v, want ready from the console", r.Host, r)
		}
		if got, want := fileSum(t, filepath.Join(srvs[i].home, "work", binaryName)), fileSum(t, opt.Binary); got != want {
			t.Errorf("%s: sha256 %s, want %s", r.Host, got, want)
		}
	}
	found := false
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.ev {
		found = found || (e.Host == hosts[1].Name && strings.Contains(e.Detail, "refuses agent forwarding"))
	}
	if !found {
		t.Errorf("no event tells %s why the relay was not used", hosts[1].Name)
	}
}

// The relay accepts only the host key the console verified: a target
// presenting another is refused, named, and gets nothing; a target with
// its own key gets the binary.
func TestServeRelayPinsHostKeys(t *testing.T) {
	key := newTestKey(t, "")
	good := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	bad := newTestServer(t, "127.0.0.2", key.signer.PublicKey())
	other := newTestServer(t, "127.0.0.3", key.signer.PublicKey()) // whose key bad's entry carries
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go agent.ServeAgent(sshclient.NewSignerAgent(key.signer), c)
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
	src := smallBinary(t, 1<<20)
	bin, err := hashFileNow(src)
	if err != nil {
		t.Fatal(err)
	}
	target := func(name string, s *testServer, hostKey ssh.PublicKey) relayTarget {
		os.MkdirAll(filepath.Join(s.home, "work"), 0o755)
		return relayTarget{Name: name, Addr: s.addr, User: "tester", Workdir: "work", TimeoutMS: 10000,
			HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(hostKey)))}
	}
	req := relayRequest{Source: src, Sum: bin.sum, Width: 2, Targets: []relayTarget{
		target("good", good, good.hostKey.PublicKey()), target("bad", bad, other.hostKey.PublicKey())}}
	data, _ := json.Marshal(req)
	in, w := io.Pipe()
	go func() { w.Write(data); w.Write([]byte("\n")) }() // stdin stays open: the console is there
	var out bytes.Buffer
	if err := ServeRelay(testCtx(t), in, &out); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := map[string]relayEvent{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e relayEvent
		if json.Unmarshal([]byte(l), &e) == nil && e.Done {
			done[e.Host] = e
		}
	}
	if e := done["good"]; e.Err != "" || e.Bytes != 1<<20 {
		t.Errorf("good: %+v, want the binary copied", e)
	}
	if got, want := fileSum(t, filepath.Join(good.home, "work", binaryName)), bin.sum; got != want {
		t.Errorf("good: sha256 %s, want %s", got, want)
	}
	if e := done["bad"]; !strings.Contains(e.Err, "relay to bad") || !strings.Contains(e.Err, "host key") {
		t.Errorf("bad: %+v, want a refusal naming it and its host key", e)
	}
	if _, err := os.Stat(filepath.Join(bad.home, "work", binaryName)); err == nil {
		t.Error("bad got the binary although its host key is not the verified one")
	}
}
