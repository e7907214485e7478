//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const deployTimeout = 3 * time.Minute

// remoteBinary is where gridtui deploy puts the worker on h.
func remoteBinary(h *Host) string { return filepath.Join(h.Home, ".gridtui", "gridtui") }

// fileSum is the sha256 of a file, "" if it cannot be read.
func fileSum(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// checkDeployed checks that every host holds the very binary under test,
// owned by the host's own user, and returns each file's modification time.
func checkDeployed(t *testing.T, g *Grid) map[string]time.Time {
	t.Helper()
	want := fileSum(gridtuiBinary(t))
	mtimes := map[string]time.Time{}
	for _, h := range g.Hosts {
		p := remoteBinary(h)
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", h.Name, err)
			continue
		}
		if got := fileSum(p); got != want {
			t.Errorf("%s: %s has sha256 %s, want the local binary's %s", h.Name, p, got, want)
		}
		u, _ := user.Lookup(h.User)
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && u != nil && strconv.Itoa(int(st.Uid)) != u.Uid {
			t.Errorf("%s: %s owned by uid %d, want %s (%s)", h.Name, p, st.Uid, u.Uid, h.User)
		}
		if fi.Mode()&0o100 == 0 {
			t.Errorf("%s: %s is not executable (%v)", h.Name, p, fi.Mode())
		}
		mtimes[h.Name] = fi.ModTime()
	}
	return mtimes
}

// checkClean checks that no host has a gridtui process or work directory.
func checkClean(t *testing.T, g *Grid) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, h := range g.Hosts {
		left, err := g.WaitHostClean(ctx, h.Name)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) > 0 {
			t.Errorf("%s: left behind: %v", h.Name, left)
		}
	}
}

// TestDeploy deploys to every host through real OpenSSH servers, redeploys
// (nothing uploaded), starts a worker per host (its hello lists eth0's and
// ib0's addresses), and stops and cleans (nothing left on any host).
func TestDeploy(t *testing.T) {
	g := newGridT(t, Config{})
	n := len(g.Hosts)
	r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n, n)) {
		t.Fatalf("deploy: exit %d, want every host ok:\n%s", r.code, r.out)
	}
	first := checkDeployed(t, g)
	checkRelayed(t, g, r.out)

	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok (%d unchanged", n, n, n)) {
		t.Errorf("redeploy: exit %d, want all %d hosts unchanged:\n%s", r.code, n, r.out)
	}
	for host, mt := range checkDeployed(t, g) {
		if !mt.Equal(first[host]) {
			t.Errorf("redeploy rewrote the binary on %s (mtime %v, was %v)", host, mt, first[host])
		}
	}

	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--start")
	if r.code != 0 {
		t.Fatalf("deploy --start: exit %d:\n%s", r.code, r.out)
	}
	checkHellos(t, g, r.out)

	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--stop", "--clean")
	if r.code != 0 {
		t.Errorf("deploy --stop --clean: exit %d:\n%s", r.code, r.out)
	}
	checkClean(t, g)
}

// checkRelayed checks that in each cluster (a site of its own) the first
// host got the binary from the console and the others from it.
func checkRelayed(t *testing.T, g *Grid, out string) {
	t.Helper()
	for _, c := range []string{"alpha", "beta"} {
		hosts := g.Cluster(c)
		for _, h := range hosts[min(1, len(hosts)):] {
			name := inventoryName(g, h)
			want := "relayed from " + inventoryName(g, hosts[0])
			found := false
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(l)
				found = found || (len(f) > 2 && f[0] == name && strings.Contains(l, want))
			}
			if !found {
				t.Errorf("%s: no %q in deploy's output", name, want)
			}
		}
	}
}

// inventoryName is h's name in the grid's sites.toml: its eth0 address, or
// its short name behind a frontend.
func inventoryName(g *Grid, h *Host) string {
	if g.Frontend != nil && h.Cluster == "beta" {
		return h.Name
	}
	return h.Ethernet.String()
}

// checkHellos finds each host's hello line in deploy --start's output and
// checks that the worker listens on the host's eth0 and ib0 addresses.
func checkHellos(t *testing.T, g *Grid, out string) {
	t.Helper()
	for _, h := range g.Hosts {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), h.Ethernet.String()+":") && strings.Contains(l, "listening") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("%s: no hello line for %s in:\n%s", h.Name, h.Ethernet, out)
			continue
		}
		// "on a1": each host has a hostname of its own (its UTS namespace).
		for _, want := range []string{"on " + h.Name + " (", "tcp://" + h.Ethernet.String() + ":", "tcp://" + h.Fast.String() + ":"} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: worker hello does not listen on %s…: %s", h.Name, want, line)
			}
		}
	}
}

// TestDeployHostKeys checks that an unknown host key is refused (and the
// host left untouched) unless --accept-new, which records hashed keys that
// later runs accept; and that a changed key is always refused.
func TestDeployHostKeys(t *testing.T) {
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	n := len(g.Hosts)
	b2, a2 := g.Host("b2"), g.Host("a2")
	for _, c := range []struct {
		name    string
		known   func(path string) error // writes the known_hosts the client uses
		args    []string
		victim  *Host // the host that must be refused (nil: none)
		wantErr string
	}{
		{name: "unknown key refused", args: []string{"deploy"}, victim: b2, wantErr: "unknown host key",
			known: func(p string) error { return g.WriteKnownHosts(p, g.Hosts[0], g.Hosts[1], g.Hosts[2]) }},
		{name: "changed key refused", args: []string{"deploy"}, victim: a2, wantErr: "host key changed",
			known: func(p string) error { return g.ForgeKnownHosts(p, "a2") }},
		{name: "changed key refused even with accept-new", args: []string{"deploy", "--accept-new"}, victim: a2,
			wantErr: "host key changed", known: func(p string) error { return g.ForgeKnownHosts(p, "a2") }},
		{name: "accept-new records unknown keys", args: []string{"deploy", "--accept-new"},
			known: func(p string) error { return g.WriteKnownHosts(p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			kh := filepath.Join(g.ConsoleHome, strings.ReplaceAll(c.name, " ", "-")+".known_hosts")
			if err := c.known(kh); err != nil {
				t.Fatal(err)
			}
			sites, err := g.SitesWith(kh)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(kh)
			r := gridtui(t, g, sites, deployTimeout, c.args...)
			if c.victim == nil {
				checkAccepted(t, g, sites, kh, r, n)
				return
			}
			if r.code == 0 || !strings.Contains(r.out, c.wantErr) || !strings.Contains(r.out, c.victim.Ethernet.String()) {
				t.Errorf("want a failure naming %s with %q, got exit %d:\n%s", c.victim.Ethernet, c.wantErr, r.code, r.out)
			}
			if !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n-1, n)) {
				t.Errorf("the other hosts should have been deployed to:\n%s", r.out)
			}
			if _, err := os.Stat(remoteBinary(c.victim)); err == nil {
				t.Errorf("%s was refused, yet its binary is there", c.victim.Name)
			}
			if after, _ := os.ReadFile(kh); !bytes.Equal(after, before) {
				t.Errorf("known_hosts changed by a refused deploy:\nbefore %s\nafter %s", before, after)
			}
			gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--clean")
		})
	}
}

// checkAccepted checks an --accept-new deploy: all hosts ok, one hashed line
// per host recorded, and a second deploy without --accept-new trusts them.
func checkAccepted(t *testing.T, g *Grid, sites, kh string, r result, n int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("deploy --accept-new: exit %d:\n%s", r.code, r.out)
	}
	data, _ := os.ReadFile(kh)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != n {
		t.Errorf("known_hosts has %d lines, want %d:\n%s", len(lines), n, data)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "|1|") {
			t.Errorf("known_hosts line not hashed: %s", l)
		}
		for _, h := range g.Hosts {
			if strings.Contains(l, h.Ethernet.String()) {
				t.Errorf("known_hosts names %s in clear: %s", h.Ethernet, l)
			}
		}
	}
	r = gridtui(t, g, sites, deployTimeout, "deploy")
	if r.code != 0 {
		t.Errorf("deploy after --accept-new recorded the keys: exit %d:\n%s", r.code, r.out)
	}
	gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--clean")
}

// TestDeployHostKeyRotated deploys, then gives a host a new host key (its
// sshd restarted with it): the next deploy must refuse that host, naming it,
// and leave known_hosts alone.
func TestDeployHostKeyRotated(t *testing.T) {
	g := newGridT(t, Config{HostsA: 1, HostsB: 1})
	if r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy"); r.code != 0 {
		t.Fatalf("deploy: exit %d:\n%s", r.code, r.out)
	}
	before, _ := os.ReadFile(g.KnownHosts)
	if err := g.RotateHostKey(context.Background(), "b1"); err != nil {
		t.Fatal(err)
	}
	b1 := g.Host("b1")
	for _, args := range [][]string{{"deploy"}, {"deploy", "--accept-new"}} {
		r := gridtui(t, g, g.SitesFile, deployTimeout, args...)
		if r.code == 0 || !strings.Contains(r.out, "host key changed") || !strings.Contains(r.out, b1.Ethernet.String()) {
			t.Errorf("%v after b1's key changed: exit %d, want a refusal naming %s:\n%s", args, r.code, b1.Ethernet, r.out)
		}
	}
	if after, _ := os.ReadFile(g.KnownHosts); !bytes.Equal(after, before) {
		t.Errorf("known_hosts changed by refused deploys")
	}
	gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--clean")
}
