//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFrontendSite reaches cluster beta only through its frontend, as on
// Grid'5000: sites.toml names beta's hosts ("b1", "b2") and nothing else;
// ~/.ssh/config maps each to its ib0 address and user through ProxyJump to
// a Host alias of the frontend with its own HostName, User and port 2222.
// Deploy, a worker per host, a run across both sites, and a wrong entry in
// the UserKnownHostsFile the configuration names all behave as with ssh.
func TestFrontendSite(t *testing.T) {
	g := newGridT(t, Config{HostsA: 1, HostsB: 2, Frontend: true})
	n := len(g.Hosts)
	// The console cannot reach beta's sshds directly: only the frontend can.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b1 := g.Host("b1")
	direct := g.ConsoleCommand(ctx, "ssh", "-F", "none", "-o", "ConnectTimeout=2", "-o", "BatchMode=yes",
		"-l", b1.User, b1.SSHAddr.String(), "true")
	if out, err := direct.CombinedOutput(); err == nil {
		t.Fatalf("b1 is reachable without the frontend: %s", out)
	}

	r := gridtui(t, g, g.SitesFile, deployTimeout, "sites")
	for _, h := range g.Cluster("beta") {
		want := fmt.Sprintf("%s@%s:22 via %s (%s@%s:%d)", h.User, h.SSHAddr, frontendAlias, g.Frontend.User, g.Frontend.SSHAddr, frontendPort)
		if !strings.Contains(r.out, want) {
			t.Errorf("gridtui sites does not show %s reached as %s", h.Name, want)
		}
	}

	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n, n)) {
		t.Fatalf("deploy: exit %d, want every host ok:\n%s", r.code, r.out)
	}
	checkDeployed(t, g)
	checkRelayed(t, g, r.out) // b2 gets it from b1, inside the site: the WAN link is crossed once
	if _, err := os.Stat(remoteBinary(g.Frontend)); err == nil {
		t.Errorf("the frontend got a worker binary; it is only a jump host")
	}

	// Probing over plain OpenSSH with the same ~/.ssh/config finds ib0.
	if ib0, ok := nicNamed(probeHost(t, g, b1), "ib0"); !ok || !ib0.Up || !slices.Contains(ib0.Addrs, b1.Fast) {
		t.Errorf("b1 probed through the frontend: ib0 = %+v, want %s", ib0, b1.Fast)
	}

	out := runJob(t, g, "--nodes", fmt.Sprint(n), "--scheme", "sync", "--n", "24", "--eps", "1e-6", "--wall-time", "2m")
	if out.code != 0 || out.report == nil || out.report.Outcome != "ok" || len(out.report.Nodes) != n {
		t.Fatalf("run across the frontend site: exit %d, report %+v", out.code, out.report)
	}

	// A wrong key for the frontend in the configured UserKnownHostsFile
	// refuses it, naming the frontend, and so every host behind it.
	if err := g.ForgeKnownHosts(g.KnownHosts, "fB"); err != nil {
		t.Fatal(err)
	}
	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code == 0 || !strings.Contains(r.out, "host key changed") || !strings.Contains(r.out, frontendAlias) {
		t.Errorf("deploy with a wrong frontend key: exit %d, want a refusal naming %s:\n%s", r.code, frontendAlias, r.out)
	}
	if err := g.WriteKnownHosts(g.KnownHosts, g.sshHosts()...); err != nil {
		t.Fatal(err)
	}
	if r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--stop", "--clean"); r.code != 0 {
		t.Errorf("deploy --stop --clean: exit %d:\n%s", r.code, r.out)
	}
	checkClean(t, g)
}
