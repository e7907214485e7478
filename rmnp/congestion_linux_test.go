package rmnp

import (
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func forceCongestion(t *testing.T, c *net.TCPConn, name string) {
	raw, _ := c.SyscallConn()
	var err error
	raw.Control(func(fd uintptr) { err = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, name) })
	if err != nil {
		t.Skipf("cannot set %s here: %v", name, err)
	}
}

// TestTuneCongestion checks the rule of Config.CongestionControl: on a short
// path a pacing control (BBR) is left for a window one, others are kept, and an
// explicit choice or "system" is followed.
func TestTuneCongestion(t *testing.T) {
	c, s := tcpPair(t)
	forceCongestion(t, c, "bbr")
	if got := tuneCongestion(c, CongestionSystem); got != "bbr" {
		t.Fatalf("system: %q, want bbr kept", got)
	}
	if got := tuneCongestion(c, CongestionAuto); got != "cubic" && got != "reno" {
		t.Fatalf("auto on loopback from bbr: %q, want cubic or reno", got)
	}
	if got := tuneCongestion(c, CongestionAuto); got != "cubic" && got != "reno" {
		t.Fatalf("auto again: %q", got)
	}
	forceCongestion(t, s, "reno")
	if got := tuneCongestion(s, CongestionAuto); got != "reno" {
		t.Fatalf("auto from reno: %q, want reno kept", got)
	}
	if got := tuneCongestion(s, "no-such-control"); got != "reno" {
		t.Fatalf("refused choice: %q, want reno kept", got)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := tuneCongestion(a, CongestionAuto); got != "" {
		t.Fatalf("pipe: %q", got)
	}
}

// TestLinkCongestion checks that links report their congestion control and that
// a link of this machine's loopback does not pace from a bandwidth estimate
// unless the configuration says so.
func TestLinkCongestion(t *testing.T) {
	def, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		t.Skip(err)
	}
	system := strings.TrimSpace(string(def))
	for _, tc := range []struct{ cfg, want string }{
		{CongestionAuto, map[bool]string{true: "", false: system}[paces(system)]},
		{CongestionSystem, system},
		{"reno", "reno"},
	} {
		acfg, bcfg := testConfig(t, 1, "tcp"), testConfig(t, 2, "tcp")
		acfg.CongestionControl, bcfg.CongestionControl = tc.cfg, tc.cfg
		a, b := newEndpoint(t, acfg), newEndpoint(t, bcfg)
		if err := a.Connect(testCtx(t), 2, b.Addrs()[0], LinkOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "link", func() bool { return len(b.Peers()) == 1 })
		for _, e := range []*Endpoint{a, b} {
			got := linkStats(t, e).Congestion
			if tc.want == "" && paces(got) || tc.want != "" && got != tc.want {
				t.Errorf("config %q: link uses %q, want %q (system %s)", tc.cfg, got, tc.want, system)
			}
		}
	}
	u1, u2 := pair(t, "unix", LinkOptions{Network: "unix"})
	_ = u2
	if got := linkStats(t, u1).Congestion; got != "" {
		t.Errorf("unix link: congestion %q", got)
	}
}
