//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Bridge names inside the switch namespace. Each cluster has its side of the
// Ethernet segment (ethA, ethB, joined by the WAN link wanA–wanB, where tbf
// can slow the inter-cluster path) and its own fast network (fastA, fastB).
const (
	wanA = "wanA"
	wanB = "wanB"
)

func ethBridge(cluster string) string {
	if cluster == clusterDefs[0].Name {
		return "ethA"
	}
	return "ethB"
}

func fastBridge(cluster string) string {
	if cluster == clusterDefs[0].Name {
		return "fastA"
	}
	return "fastB"
}

// portName is the switch-side end of a host's NIC: "a1-eth0", "a1-ib0".
func portName(host, nic string) string { return host + "-" + nic }

// run runs a command and returns its output; the error carries the command
// line and what it printed.
func run(ctx context.Context, name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("e2e: %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// ipBatch runs `ip -batch -`, optionally inside a namespace, one command a line.
func ipBatch(ctx context.Context, netns string, lines []string) error {
	args := []string{"-batch", "-"}
	if netns != "" {
		args = append([]string{"-n", netns}, args...)
	}
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("e2e: ip -n %q batch: %w: %s", netns, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// addNetns creates a namespace with lo up and IPv6 off (the grid is IPv4,
// and IPv6 would only add link-local chatter).
func (g *Grid) addNetns(ctx context.Context, ns string) error {
	if _, err := run(ctx, "ip", "netns", "add", ns); err != nil {
		return err
	}
	g.mu.Lock()
	g.netns = append(g.netns, ns)
	g.mu.Unlock()
	if err := ipBatch(ctx, ns, []string{"link set lo up"}); err != nil {
		return err
	}
	for _, key := range []string{"net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"} {
		if _, err := run(ctx, "ip", "netns", "exec", ns, "sysctl", "-qw", key+"=1"); err != nil {
			return err
		}
	}
	return nil
}

// buildNetwork creates the switch, the console and every host's namespace
// and links them.
func (g *Grid) buildNetwork(ctx context.Context) error {
	if g.cfg.Gateways != "" {
		return g.buildSplitNetwork(ctx)
	}
	if err := g.addNetns(ctx, g.Switch); err != nil {
		return err
	}
	sw := []string{}
	for _, br := range []string{"ethA", "ethB", "fastA", "fastB"} {
		sw = append(sw, "link add "+br+" type bridge", "link set "+br+" up")
	}
	sw = append(sw, "link add "+wanA+" type veth peer name "+wanB,
		"link set "+wanA+" master ethA", "link set "+wanB+" master ethB",
		"link set "+wanA+" up", "link set "+wanB+" up")
	if err := ipBatch(ctx, g.Switch, sw); err != nil {
		return err
	}
	if g.cfg.LimitWAN != "" {
		if err := g.limitWAN(ctx, g.cfg.LimitWAN); err != nil {
			return err
		}
	}
	if err := g.addNetns(ctx, g.Console); err != nil {
		return err
	}
	if err := g.plugNIC(ctx, g.Console, "con", "eth0", "ethA", ConsoleAddr.String(), ethernetBits); err != nil {
		return err
	}
	for _, h := range g.sshHosts() {
		if err := g.addNetns(ctx, h.Netns); err != nil {
			return err
		}
		if err := g.plugNIC(ctx, h.Netns, h.Name, "eth0", ethBridge(h.Cluster), h.Ethernet.String(), ethernetBits); err != nil {
			return err
		}
		if err := g.plugNIC(ctx, h.Netns, h.Name, "ib0", fastBridge(h.Cluster), h.Fast.String(), fastBits); err != nil {
			return err
		}
	}
	return nil
}

// plugNIC creates nic in netns as a veth whose other end is a port of bridge
// in the switch namespace, and gives it addr/bits.
func (g *Grid) plugNIC(ctx context.Context, netns, host, nic, bridge, addr string, bits int) error {
	port := portName(host, nic)
	if _, err := run(ctx, "ip", "link", "add", "name", nic, "netns", netns, "type", "veth",
		"peer", "name", port, "netns", g.Switch); err != nil {
		return err
	}
	if err := ipBatch(ctx, g.Switch, []string{"link set " + port + " master " + bridge, "link set " + port + " up"}); err != nil {
		return err
	}
	return ipBatch(ctx, netns, []string{
		"addr add " + addr + "/" + strconv.Itoa(bits) + " dev " + nic,
		"link set " + nic + " up"})
}

// limitWAN puts a token bucket on both directions of the inter-cluster link.
func (g *Grid) limitWAN(ctx context.Context, rate string) error {
	for _, dev := range []string{wanA, wanB} {
		if _, err := run(ctx, "ip", "netns", "exec", g.Switch, "tc", "qdisc", "replace", "dev", dev, "root",
			"tbf", "rate", rate, "burst", "64kb", "latency", "50ms"); err != nil {
			return err
		}
	}
	return nil
}

// WANQdisc returns `tc -s qdisc show` of both ends of the WAN link (to
// check the limit and read its byte counters: each end counts what leaves
// its cluster).
func (g *Grid) WANQdisc(ctx context.Context) (string, error) {
	var b strings.Builder
	for _, dev := range []string{wanA, wanB} {
		out, err := run(ctx, "ip", "netns", "exec", g.Switch, "tc", "-s", "qdisc", "show", "dev", dev)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
	}
	return b.String(), nil
}

// LinkDown sets a host's NIC ("eth0", "ib0") administratively down inside
// the host: the host sees it down (probe reports it), and nothing passes.
func (g *Grid) LinkDown(ctx context.Context, host, nic string) error {
	return g.setLink(ctx, host, nic, "down")
}

// LinkUp undoes LinkDown.
func (g *Grid) LinkUp(ctx context.Context, host, nic string) error {
	return g.setLink(ctx, host, nic, "up")
}

func (g *Grid) setLink(ctx context.Context, host, nic, state string) error {
	h := g.Host(host)
	if h == nil {
		return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	return ipBatch(ctx, h.Netns, []string{"link set " + nic + " " + state})
}

// Unplug detaches a host's NIC from its switch: the host still sees the link
// up with its address, but every packet is lost — a cable pulled out at the
// switch, invisible to probing, found only by trying (pre-flight).
func (g *Grid) Unplug(ctx context.Context, host, nic string) error {
	if g.Host(host) == nil {
		return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	return ipBatch(ctx, g.Switch, []string{"link set " + portName(host, nic) + " nomaster"})
}

// Plug undoes Unplug.
func (g *Grid) Plug(ctx context.Context, host, nic string) error {
	h := g.Host(host)
	if h == nil {
		return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	br := ethBridge(h.Cluster)
	if nic == "ib0" {
		br = fastBridge(h.Cluster)
	}
	return ipBatch(ctx, g.Switch, []string{"link set " + portName(host, nic) + " master " + br})
}

// Command returns a command that runs argv inside host's namespace as root
// ("console" names the console namespace).
func (g *Grid) Command(ctx context.Context, host string, argv ...string) (*exec.Cmd, error) {
	ns := g.Console
	if host != "console" {
		h := g.Host(host)
		if h == nil {
			return nil, fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
		}
		ns = h.Netns
	}
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns}, argv...)...)
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// Exec runs argv inside host's namespace ("console" for the console) and
// returns what it printed (stdout and stderr together).
func (g *Grid) Exec(ctx context.Context, host string, argv ...string) (string, error) {
	cmd, err := g.Command(ctx, host, argv...)
	if err != nil {
		return "", err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("e2e: on %s: %s: %w: %s", host, strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Pids lists the processes running in host's namespace.
func (g *Grid) Pids(ctx context.Context, host string) ([]int, error) {
	h := g.Host(host)
	if h == nil {
		return nil, fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	return netnsPids(ctx, h.Netns)
}

func netnsPids(ctx context.Context, ns string) ([]int, error) {
	out, err := run(ctx, "ip", "netns", "pids", ns)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids, nil
}

// killNetns stops every process in ns: SIGTERM, then SIGKILL after 3 s.
func killNetns(ctx context.Context, ns string) {
	for round, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		pids, err := netnsPids(ctx, ns)
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			if p != os.Getpid() { // never this process, whatever thread of it sits in ns
				_ = syscall.Kill(p, sig)
			}
		}
		for i := 0; i < 30 && round == 0; i++ {
			if pids, _ := netnsPids(ctx, ns); len(pids) == 0 || (len(pids) == 1 && pids[0] == os.Getpid()) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(200 * time.Millisecond)
}

// delNetns deletes ns; a namespace that is not there is not an error.
func delNetns(ctx context.Context, ns string) error {
	if _, err := os.Stat("/run/netns/" + ns); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	_, err := run(ctx, "ip", "netns", "del", ns)
	return err
}
