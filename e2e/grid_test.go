//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve accepts connections on l and drains them until l closes.
func serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() { io.Copy(io.Discard, c); c.Close() }()
	}
}

// listenAll listens on port of the given addresses in their hosts'
// namespaces, closed at the end of t.
func listenAll(t *testing.T, g *Grid, port int, hosts map[string][]string) {
	t.Helper()
	for host, addrs := range hosts {
		for _, a := range addrs {
			l, err := g.Listen(host, net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			go serve(l)
		}
	}
}

// reach dials addr from host with a short timeout.
func reach(g *Grid, host, addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	c, err := g.Dial(ctx, host, addr)
	if err == nil {
		c.Close()
	}
	return err
}

// TestGridNetworks checks the harness itself: every host has eth0 and ib0
// with the planned addresses, ib0 reaches only its own cluster, eth0 reaches
// everything, Unplug blackholes a NIC the host still sees up, LinkDown takes
// it down, the WAN limit is in place and carries exactly the inter-cluster
// Ethernet traffic, sshd serves each host's own user; and Down leaves nothing.
func TestGridNetworks(t *testing.T) {
	g := newGridT(t, Config{HostsA: 2, HostsB: 2, LimitWAN: "50mbit"})
	a1, b1 := g.Host("a1"), g.Host("b1")
	for _, h := range g.Hosts {
		out, err := g.Exec(context.Background(), h.Name, "ip", "-br", "-4", "addr", "show")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"eth0", h.Ethernet.String() + "/16", "ib0", h.Fast.String() + "/24"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: ip addr lacks %q:\n%s", h.Name, want, out)
			}
		}
	}
	const port = 7001
	listenAll(t, g, port, map[string][]string{
		"a1": {a1.Ethernet.String(), a1.Fast.String()},
		"b1": {b1.Ethernet.String(), b1.Fast.String()},
	})
	addr := func(h *Host, fast bool) string {
		if fast {
			return net.JoinHostPort(h.Fast.String(), strconv.Itoa(port))
		}
		return net.JoinHostPort(h.Ethernet.String(), strconv.Itoa(port))
	}
	checkReach(t, g, addr)
	checkUnplug(t, g, addr)
	checkWAN(t, g, addr)
	out, err := g.SSH(context.Background(), "b2", `id -un; echo "$HOME"; ip -br link show ib0`)
	if err != nil {
		t.Fatalf("%v\nsshd log:\n%s", err, g.SSHDLog("b2"))
	}
	if b2 := g.Host("b2"); !strings.Contains(out, b2.User) || !strings.Contains(out, b2.Home) {
		t.Errorf("ssh b2: want user %s and home %s, got:\n%s", b2.User, b2.Home, out)
	}
	if err := g.Down(); err != nil {
		t.Fatal(err)
	}
	if leaks := g.Leaks(context.Background()); len(leaks) > 0 {
		t.Errorf("after Down: %v", leaks)
	}
	if err := g.Down(); err != nil {
		t.Errorf("second Down: %v", err)
	}
}

func checkReach(t *testing.T, g *Grid, addr func(*Host, bool) string) {
	a1, b1 := g.Host("a1"), g.Host("b1")
	for _, c := range []struct {
		name, from, to string
		ok             bool
	}{
		{"ib0 inside alpha", "a2", addr(a1, true), true},
		{"ib0 inside beta", "b2", addr(b1, true), true},
		{"ib0 from the other cluster", "b2", addr(a1, true), false},
		{"ib0 from the console", "console", addr(b1, true), false},
		{"eth0 inside alpha", "a2", addr(a1, false), true},
		{"eth0 across clusters", "a2", addr(b1, false), true},
		{"eth0 from the console", "console", addr(b1, false), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := reach(g, c.from, c.to)
			if (err == nil) != c.ok {
				t.Errorf("%s → %s: reachable=%v, want %v (%v)", c.from, c.to, err == nil, c.ok, err)
			}
		})
	}
}

func checkUnplug(t *testing.T, g *Grid, addr func(*Host, bool) string) {
	ctx := context.Background()
	b1 := g.Host("b1")
	if err := g.Unplug(ctx, "b1", "ib0"); err != nil {
		t.Fatal(err)
	}
	if err := reach(g, "b2", addr(b1, true)); err == nil {
		t.Error("b1's ib0 unplugged, yet b2 reached it")
	}
	if out, _ := g.Exec(ctx, "b1", "ip", "-br", "link", "show", "ib0"); !strings.Contains(out, "UP") {
		t.Errorf("unplugged ib0 should still look up on b1: %s", out)
	}
	if err := reach(g, "b2", addr(b1, false)); err != nil {
		t.Errorf("b1's eth0 should still work: %v", err)
	}
	if err := g.Plug(ctx, "b1", "ib0"); err != nil {
		t.Fatal(err)
	}
	if err := reach(g, "b2", addr(b1, true)); err != nil {
		t.Errorf("after Plug: %v", err)
	}
	if err := g.LinkDown(ctx, "b1", "ib0"); err != nil {
		t.Fatal(err)
	}
	if out, _ := g.Exec(ctx, "b1", "ip", "-br", "link", "show", "ib0"); !strings.Contains(out, "DOWN") {
		t.Errorf("ib0 after LinkDown: %s", out)
	}
	if err := reach(g, "b2", addr(b1, true)); err == nil {
		t.Error("b1's ib0 down, yet b2 reached it")
	}
	if err := g.LinkUp(ctx, "b1", "ib0"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // the veth needs a moment to carry again
	for reach(g, "b2", addr(b1, true)) != nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := reach(g, "b2", addr(b1, true)); err != nil {
		t.Errorf("after LinkUp: %v", err)
	}
}

// wanSent sums the bytes sent by the WAN link's tbf qdiscs (both
// directions), checking they limit to rate ("50Mbit").
func wanSent(t *testing.T, g *Grid, rate string) uint64 {
	t.Helper()
	out, err := g.WANQdisc(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "tbf") != 2 || strings.Count(out, "rate "+rate) != 2 {
		t.Fatalf("WAN link is not limited by tbf rate %s both ways:\n%s", rate, out)
	}
	var sum uint64
	for _, m := range regexp.MustCompile(`Sent (\d+) bytes`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseUint(m[1], 10, 64)
		sum += n
	}
	return sum
}

// send writes n bytes from host to addr.
func send(t *testing.T, g *Grid, host, addr string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := g.Dial(ctx, host, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
}

// checkWAN proves the tbf sits exactly on the inter-cluster path: 1 MiB
// from a1 to a2... is not counted, 1 MiB from a1 to b1 is.
func checkWAN(t *testing.T, g *Grid, addr func(*Host, bool) string) {
	const mib = 1 << 20
	l, err := g.Listen("a2", net.JoinHostPort(g.Host("a2").Ethernet.String(), "7002"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go serve(l)
	before := wanSent(t, g, "50Mbit")
	send(t, g, "a1", l.Addr().String(), mib)
	mid := wanSent(t, g, "50Mbit")
	if mid-before > 64<<10 {
		t.Errorf("intra-cluster Ethernet traffic crossed the WAN link: %d bytes", mid-before)
	}
	send(t, g, "a1", addr(g.Host("b1"), false), mib)
	time.Sleep(200 * time.Millisecond) // let the last segments leave the queue
	if after := wanSent(t, g, "50Mbit"); after-mid < mib {
		t.Errorf("1 MiB from a1 to b1 put only %d bytes on the WAN link", after-mid)
	}
}

// TestInterruptTearsDown runs the netgrid command, interrupts it like Ctrl-C
// and checks that nothing of its grid remains; then kills another one with
// SIGKILL and checks that CleanStale removes what it left.
func TestInterruptTearsDown(t *testing.T) {
	needGrid(t)
	exe := filepath.Join(t.TempDir(), "netgrid")
	build := exec.Command("go", "build", "-tags", "e2e", "-o", exe, "./netgrid")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build netgrid: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{{"ctrl-c", syscall.SIGINT}, {"sigkill", syscall.SIGKILL}} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(exe, "up", "-a", "1", "-b", "1")
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			id := waitGridUp(t, stdout)
			go io.Copy(io.Discard, stdout)
			g := &Grid{ID: id, Dir: filepath.Join(os.TempDir(), "gridtui-e2e-"+id)}
			if leaks := g.Leaks(context.Background()); len(leaks) == 0 {
				t.Fatal("grid up, yet Leaks sees nothing of it")
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if c.sig == syscall.SIGKILL {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				removed, err := CleanStale(ctx)
				if err != nil || len(removed) == 0 {
					t.Errorf("CleanStale after SIGKILL: removed %v, err %v", removed, err)
				}
			}
			if leaks := g.Leaks(context.Background()); len(leaks) > 0 {
				t.Errorf("after %s: %v", c.name, leaks)
			}
		})
	}
}

// waitGridUp reads netgrid's output until the grid is up, returning its id.
func waitGridUp(t *testing.T, r io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(r)
	re := regexp.MustCompile(`grid ([0-9a-f]+) up`)
	id := ""
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			id = m[1]
		}
		if strings.Contains(sc.Text(), "Ctrl-C tears") {
			return id
		}
	}
	t.Fatalf("netgrid exited before its grid was up (id %q): %v", id, sc.Err())
	return ""
}
