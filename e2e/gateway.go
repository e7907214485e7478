//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The split grid (Config.Gateways): two sites whose node networks are not
// routed to each other, as on real grids where compute nodes have private
// addresses. Each cluster's Ethernet bridge stands alone (/24 per site, no
// link between them, no default route), so a node of one site gets
// "network unreachable" for the other's; the console has a leg on both (the
// user's workstation reaches both frontends). Only the first host of each
// site — its gateway — has wan0 on the WAN bridge, whose ports tbf limits.
const (
	wanBridge = "wan"
	splitBits = 24
)

// gatewayTunnel is the Config.Gateways of a split grid without a WAN.
const gatewayTunnel = "ssh"

// gatewayClosed is the Config.Gateways of a split grid without a WAN whose
// sites.toml still names each gateway's WAN address and ports, as if a
// firewall closed them: the gateway link's pre-flight fails and gridtui
// falls back to the SSH tunnel.
const gatewayClosed = "closed"

// noWAN reports whether the split grid has no WAN (its gateways are
// linked through an SSH tunnel).
func (g *Grid) noWAN() bool {
	return g.cfg.Gateways == gatewayTunnel || g.cfg.Gateways == gatewayClosed
}

// wanAddr is the WAN address of a site's gateway host (198.19.200.0/24, in
// the benchmarking range, apart from the fast segments).
func wanAddr(site int) netip.Addr { return netip.AddrFrom4([4]byte{198, 19, 200, byte(site + 1)}) }

// consoleLeg is the console's address on a cluster's Ethernet bridge.
func consoleLeg(c clusterDef) string { return fmt.Sprintf("198.18.%d.1", c.Octet) }

// GatewayHost returns the gateway host of the site of cluster c (its first
// host), or nil on a grid without gateways.
func (g *Grid) GatewayHost(cluster string) *Host {
	if g.cfg.Gateways == "" {
		return nil
	}
	if hs := g.Cluster(cluster); len(hs) > 0 {
		return hs[0]
	}
	return nil
}

// buildSplitNetwork is buildNetwork for Config.Gateways.
func (g *Grid) buildSplitNetwork(ctx context.Context) error {
	if err := g.addNetns(ctx, g.Switch); err != nil {
		return err
	}
	var sw []string
	for _, br := range []string{"ethA", "ethB", "fastA", "fastB", wanBridge} {
		sw = append(sw, "link add "+br+" type bridge", "link set "+br+" up")
	}
	if err := ipBatch(ctx, g.Switch, sw); err != nil {
		return err
	}
	if err := g.addNetns(ctx, g.Console); err != nil {
		return err
	}
	for i, c := range clusterDefs {
		if err := g.plugNIC(ctx, g.Console, "con", "eth"+strconv.Itoa(i), ethBridge(c.Name), consoleLeg(c), splitBits); err != nil {
			return err
		}
	}
	for _, h := range g.sshHosts() {
		if err := g.addNetns(ctx, h.Netns); err != nil {
			return err
		}
		if err := g.plugNIC(ctx, h.Netns, h.Name, "eth0", ethBridge(h.Cluster), h.Ethernet.String(), splitBits); err != nil {
			return err
		}
		if err := g.plugNIC(ctx, h.Netns, h.Name, "ib0", fastBridge(h.Cluster), h.Fast.String(), fastBits); err != nil {
			return err
		}
	}
	for i, c := range clusterDefs {
		gw := g.GatewayHost(c.Name)
		if gw == nil || g.noWAN() {
			continue
		}
		if err := g.plugNIC(ctx, gw.Netns, gw.Name, "wan0", wanBridge, wanAddr(i).String(), splitBits); err != nil {
			return err
		}
		// tbf on the switch's port toward the gateway: what the WAN delivers
		// to it, so both directions are limited.
		if _, err := run(ctx, "ip", "netns", "exec", g.Switch, "tc", "qdisc", "replace", "dev", portName(gw.Name, "wan0"), "root",
			"tbf", "rate", g.cfg.Gateways, "burst", "64kb", "latency", "50ms"); err != nil {
			return err
		}
	}
	return nil
}

// gatewayTable is the [[site.gateway]] of cluster c's site on a split grid.
func (g *Grid) gatewayTable(c clusterDef) string {
	gw := g.GatewayHost(c.Name)
	if gw == nil {
		return ""
	}
	for i, d := range clusterDefs {
		if d.Name == c.Name && g.cfg.Gateways == gatewayTunnel {
			return fmt.Sprintf("\n  [[site.gateway]]\n  host = %q\n", gw.Ethernet.String())
		}
		if d.Name == c.Name {
			return fmt.Sprintf("\n  [[site.gateway]]\n  host = %q\n  address = %q\n  ports = [7400, 7401]\n", gw.Ethernet.String(), wanAddr(i))
		}
	}
	return ""
}

// WANBytes returns the bytes the WAN delivered to each gateway host so far
// (tc's counter of the switch port toward it), by host name.
func (g *Grid) WANBytes(ctx context.Context) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, c := range clusterDefs {
		gw := g.GatewayHost(c.Name)
		if gw == nil || g.noWAN() {
			continue
		}
		s, err := run(ctx, "ip", "netns", "exec", g.Switch, "tc", "-s", "qdisc", "show", "dev", portName(gw.Name, "wan0"))
		if err != nil {
			return nil, err
		}
		i := strings.Index(s, "Sent ")
		if i < 0 {
			return nil, fmt.Errorf("e2e: tc output of %s: %q", gw.Name, s)
		}
		f := strings.Fields(s[i+len("Sent "):])
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("e2e: tc output of %s: %q", gw.Name, s)
		}
		out[gw.Name] = n
	}
	return out, nil
}

// LimitConsole puts a tbf of rate on the switch's ports toward the console
// of a split grid: what reaches the console from either site, so that the
// SSH tunnel between the sites' gateways (which the console carries) crosses
// a limit equal to the WAN's of the gateway path.
func (g *Grid) LimitConsole(ctx context.Context, rate string) error {
	if g.cfg.Gateways == "" {
		return fmt.Errorf("e2e: grid %s is not split: its console has one leg", g.ID)
	}
	for i := range clusterDefs {
		if _, err := run(ctx, "ip", "netns", "exec", g.Switch, "tc", "qdisc", "replace", "dev", portName("con", "eth"+strconv.Itoa(i)), "root",
			"tbf", "rate", rate, "burst", "64kb", "latency", "50ms"); err != nil {
			return err
		}
	}
	return nil
}
