//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// writeInventory writes sites.toml (one site per cluster, hosts named by
// their eth0 address, each with its own user) and a known_hosts with every
// host key.
func (g *Grid) writeInventory() error {
	if err := os.WriteFile(g.SitesFile, g.Sites(), 0o644); err != nil {
		return fmt.Errorf("e2e: write %s: %w", g.SitesFile, err)
	}
	if g.Frontend != nil {
		if err := os.WriteFile(g.SSHConfig, g.sshConfig(), 0o600); err != nil {
			return fmt.Errorf("e2e: write %s: %w", g.SSHConfig, err)
		}
	}
	return g.WriteKnownHosts(g.KnownHosts, g.sshHosts()...)
}

// frontendAlias is the Host alias of beta's frontend in ~/.ssh/config.
const frontendAlias = "gw-siteB"

// sshConfig is the console's ~/.ssh/config of a grid with a frontend: an
// alias for the frontend (its own HostName, User and Port), one block per
// beta host (HostName on ib0, its user, ProxyJump through the alias), and
// the key and known_hosts for every host.
func (g *Grid) sshConfig() []byte {
	var b bytes.Buffer
	f := g.Frontend
	fmt.Fprintf(&b, "# gridtui e2e grid %s (generated)\nHost %s\n  HostName %s\n  User %s\n  Port %d\n\n",
		g.ID, frontendAlias, f.SSHAddr, f.User, f.SSHPort)
	for _, h := range g.Cluster(clusterDefs[1].Name) {
		fmt.Fprintf(&b, "Host %s\n  HostName %s\n  User %s\n  ProxyJump %s\n\n", h.Name, h.SSHAddr, h.User, frontendAlias)
	}
	fmt.Fprintf(&b, "Host *\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  ConnectTimeout 5\n",
		g.Identity, g.KnownHosts)
	return b.Bytes()
}

// Sites returns the grid's inventory as sites.toml text. Hosts are named by
// their eth0 address: the console resolves no names inside the grid.
func (g *Grid) Sites() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# gridtui e2e grid %s: %d hosts in network namespaces (generated)\n", g.ID, len(g.Hosts))
	b.WriteString("locality = \"octet\"\n\n[defaults]\n")
	if g.Frontend == nil {
		fmt.Fprintf(&b, "port = 22\nidentity_files = [%q]\nknown_hosts = %q\nconnect_timeout = \"5s\"\n", g.Identity, g.KnownHosts)
	}
	b.WriteString("workdir = \".gridtui\"\n")
	for _, c := range clusterDefs {
		hosts := g.Cluster(c.Name)
		if len(hosts) == 0 {
			continue
		}
		hidden := g.Frontend != nil && c.Name == clusterDefs[1].Name // SSH from ~/.ssh/config alone
		names := make([]string, len(hosts))
		for i, h := range hosts {
			names[i] = fmt.Sprintf("%q", h.Ethernet.String())
			if hidden {
				names[i] = fmt.Sprintf("%q", h.Name)
			}
		}
		fmt.Fprintf(&b, "\n[[site]]\nname = %q\n%s\n  [[site.cluster]]\n  name = %q\n", c.Site, g.launcherLines(c), c.Name)
		fmt.Fprintf(&b, "  hosts = [%s]\n  cores = 1\n  ethernet = \"eth0\"\n  fast = \"ib0\"\n", strings.Join(names, ", "))
		for _, h := range hosts {
			if hidden {
				break
			}
			fmt.Fprintf(&b, "\n    [[site.cluster.host]]\n    name = %q\n    user = %q\n", h.Ethernet.String(), h.User)
		}
		b.WriteString(g.gatewayTable(c))
	}
	return b.Bytes()
}

// WriteKnownHosts writes a known_hosts file holding the keys of hosts (plain
// host names, as `ssh-keyscan` would; "[addr]:port" off port 22).
func (g *Grid) WriteKnownHosts(path string, hosts ...*Host) error {
	var b bytes.Buffer
	for _, h := range hosts {
		name := h.SSHAddr.String()
		if h.SSHPort != 22 {
			name = fmt.Sprintf("[%s]:%d", h.SSHAddr, h.SSHPort)
		}
		fmt.Fprintf(&b, "%s %s %s\n", name, h.HostKey.Type(), base64.StdEncoding.EncodeToString(h.HostKey.Marshal()))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("e2e: known_hosts %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("e2e: known_hosts %s: %w", path, err)
	}
	return nil
}

// ForgeKnownHosts writes a known_hosts file in which host has another
// (freshly generated) key and every other host its true one: to the client,
// exactly what a changed host key looks like.
func (g *Grid) ForgeKnownHosts(path, host string) error {
	target := g.Host(host)
	if target == nil {
		return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	other, err := writeKey(filepath.Join(g.Dir, "forged-"+host), "forged")
	if err != nil {
		return err
	}
	hosts := make([]*Host, 0, len(g.Hosts)+1)
	for _, h := range g.sshHosts() {
		if h == target {
			fake := *h
			fake.HostKey = other
			h = &fake
		}
		hosts = append(hosts, h)
	}
	return g.WriteKnownHosts(path, hosts...)
}

// SitesWith writes a copy of the inventory that uses knownHosts instead of
// the grid's own file, and returns its path.
func (g *Grid) SitesWith(knownHosts string) (string, error) {
	text := bytes.Replace(g.Sites(), []byte(fmt.Sprintf("known_hosts = %q", g.KnownHosts)),
		[]byte(fmt.Sprintf("known_hosts = %q", knownHosts)), 1)
	f, err := os.CreateTemp(g.ConsoleHome, "sites-*.toml")
	if err != nil {
		return "", fmt.Errorf("e2e: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		return "", fmt.Errorf("e2e: write %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// ConsoleCommand returns a command running argv in the console namespace
// with HOME set to ConsoleHome (so ~/.ssh/config, the default known_hosts
// and the results store are the grid's, never the caller's) and no SSH agent.
func (g *Grid) ConsoleCommand(ctx context.Context, argv ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", g.Console}, argv...)...)
	cmd.Dir = g.ConsoleHome
	cmd.Env = []string{"HOME=" + g.ConsoleHome, "USER=root", "LOGNAME=root", "PATH=" + os.Getenv("PATH"),
		"TERM=dumb", "NO_COLOR=1", "XDG_DATA_HOME=" + filepath.Join(g.ConsoleHome, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(g.ConsoleHome, ".config"), "XDG_CACHE_HOME=" + filepath.Join(g.ConsoleHome, ".cache")}
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// SSH runs a shell command on host as its user through the real OpenSSH
// client, from the console namespace, checking the host key strictly (a host
// behind the frontend is reached through the console's ~/.ssh/config).
func (g *Grid) SSH(ctx context.Context, host, command string) (string, error) {
	h := g.Host(host)
	if h == nil {
		return "", fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	if h.SSHAddr != h.Ethernet { // behind the frontend: as the user would, by ~/.ssh/config
		out, err := g.ConsoleCommand(ctx, "ssh", "-F", g.SSHConfig, "-o", "BatchMode=yes", h.Name, command).CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("e2e: ssh %s %q: %w: %s", h.Name, command, err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
	cmd := g.ConsoleCommand(ctx, "ssh", "-F", "/dev/null", "-i", g.Identity,
		"-o", "UserKnownHostsFile="+g.KnownHosts, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
		"-o", "ConnectTimeout=5", "-o", "IdentitiesOnly=yes", "-l", h.User, h.Ethernet.String(), command)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("e2e: ssh %s@%s %q: %w: %s", h.User, h.Ethernet, command, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
