//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A real OAR in the grid (Config.OAR), as on Grid'5000: Almighty, oarsub and
// oarstat on beta's frontend, the node sshd of oar-node (port 6667, user
// oar) in every beta host's namespace, and beta's hosts as OAR's resources
// (network_address "b1"…, one core each). The database is this machine's
// PostgreSQL (Debian's oar-server-pgsql), reached from the frontend's
// namespace through a proxy of its 127.0.0.1:5432. OAR's
// server and its clients find each other at the frontend's ib0 address,
// which the nodes reach too (oarexec reports a job's end there), and the
// oar user's ssh configuration maps each node name to its ib0 address.
// Jobs are submitted by the frontend's user (OAR refuses root's), whose
// home the nodes share, as Grid'5000's homes are shared.
//
// OAR's files are global: /etc/oar/oar.conf and the oar user's ssh
// configuration are changed for the grid and restored by Down, and the
// grid's resources are set Dead when it goes down.

// oarConf and oarSSHConfig are the files the grid changes and restores;
// oarHolder names the jobs tests submit to hold a node.
const (
	oarHolder    = "gte2e-holder"
	oarConf      = "/etc/oar/oar.conf"
	oarSSHConfig = "/var/lib/oar/.ssh/config"
	oarNoCpuset  = "/etc/oar/job_resource_manager_none.pl"
)

// oarTools are the programs a grid with OAR needs.
var oarTools = []string{"oarsub", "oarstat", "oardel", "oarsh", "oarnodesetting", "oarproperty", "oar-database",
	"/usr/sbin/Almighty", "/usr/sbin/sshd", "pg_lsclusters", "pg_ctlcluster", "nsenter"}

// oarMissing names the first OAR program that is not installed ("" if none).
func oarMissing() string {
	for _, tool := range oarTools {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

// oarSetup prepares OAR's database and configuration: PostgreSQL running,
// the oar database, passwords for OAR's two database users, no cpusets (a
// container has none to give), the core property.
const oarSetup = `set -e
v=$(pg_lsclusters -h | awk 'NR==1{print $1" "$2}')
[ -n "$v" ] || { echo "no PostgreSQL cluster" >&2; exit 1; }
pg_lsclusters -h | grep -q online || pg_ctlcluster $v start
sed -i 's/^DB_BASE_PASSWD=""/DB_BASE_PASSWD="gridtui-test"/;s/^DB_BASE_PASSWD_RO=""/DB_BASE_PASSWD_RO="gridtui-test-ro"/;s|^JOB_RESOURCE_MANAGER_FILE=.*|JOB_RESOURCE_MANAGER_FILE="` + oarNoCpuset + `"|;s/^CPUSET_PATH=/#&/' ` + oarConf + `
printf '#!/usr/bin/perl\n# gridtui tests: no cpusets in this container\nexit(0);\n__END__\n' >` + oarNoCpuset + `
sed -i 's/^UsePrivilegeSeparation/#&/' /etc/oar/sshd_config
mkdir -p /run/sshd
su postgres -c "psql -lqt" | cut -d'|' -f1 | grep -qw oar || oar-database --create --db-is-local --db-admin-user=postgres >/dev/null
oarproperty -l | grep -qx core || oarproperty -a core >/dev/null
`

// startOAR sets OAR up for the grid and starts its daemons.
func (g *Grid) startOAR(ctx context.Context) error {
	if g.Frontend == nil {
		return fmt.Errorf("e2e: Config.OAR needs Config.Frontend (Almighty runs on the frontend)")
	}
	if tool := oarMissing(); tool != "" {
		return fmt.Errorf("%w: %s not found (apt-get install oar-server oar-server-pgsql oar-node oar-user oar-user-pgsql postgresql)", ErrUnsupported, tool)
	}
	if exec.Command("pgrep", "-x", "Almighty").Run() == nil {
		return fmt.Errorf("%w: an OAR server (Almighty) already runs on this machine", ErrUnsupported)
	}
	if err := g.keepFile(oarConf); err != nil {
		return err
	}
	if err := g.keepFile(oarSSHConfig); err != nil {
		return err
	}
	// PostgreSQL, which the setup may start, outlives the grid: it must not
	// inherit a descriptor this process got from its parent (the e2e lock
	// of flock(1), which it would then hold for good).
	closeOnExecInherited()
	if out, err := exec.CommandContext(ctx, "sh", "-c", oarSetup).CombinedOutput(); err != nil {
		return fmt.Errorf("e2e: OAR setup: %w: %s", err, out)
	}
	f := g.Frontend.Fast.String()
	if _, err := run(ctx, "sed", "-i", `s/^SERVER_HOSTNAME=.*/SERVER_HOSTNAME="`+f+`"/`, oarConf); err != nil {
		return err
	}
	if err := g.writeOARSSHConfig(); err != nil {
		return err
	}
	if err := g.proxyPostgres(); err != nil {
		return err
	}
	dir := filepath.Join(g.Dir, "oar")
	os.MkdirAll(dir, 0o755)
	beta := g.Cluster(clusterDefs[1].Name)
	for _, h := range beta {
		if err := g.oarDaemon(h, filepath.Join(dir, "sshd-"+h.Name+".log"), "/usr/sbin/sshd", "-D", "-e", "-f", "/etc/oar/sshd_config"); err != nil {
			return err
		}
	}
	for _, h := range beta {
		script := fmt.Sprintf(`oarnodes -s %[1]s 2>/dev/null | grep -q ' : ' || oarnodesetting -a -h %[1]s -p core=1 >/dev/null
oarnodesetting -s Alive -h %[1]s >/dev/null`, h.Name)
		if out, err := g.OARCommand(ctx, "sh", "-c", script).CombinedOutput(); err != nil {
			return fmt.Errorf("e2e: OAR resource %s: %w: %s", h.Name, err, out)
		}
	}
	if err := g.oarDaemon(g.Frontend, filepath.Join(dir, "almighty.log"), "/usr/sbin/Almighty"); err != nil {
		return err
	}
	// Almighty applies the Alive of a resource retired Dead by an earlier
	// grid: before it has, a job asking for the node is refused ("There
	// are not enough resources for your request").
	if err := g.waitOARAlive(ctx, beta); err != nil {
		return err
	}
	// Before Almighty stops (onDown runs in reverse): no job of the grid's
	// left behind, and its resources Dead (Almighty applies the change),
	// so that no later job of this machine's OAR is given them.
	g.onDown(func() { g.retireOARNodes(context.Background(), beta) })
	g.onDown(func() { g.deleteOARJobs(context.Background()) })
	return nil
}

// waitOARAlive waits (up to a minute) until every one of hosts' resources
// is Alive.
func (g *Grid) waitOARAlive(ctx context.Context, hosts []*Host) error {
	var out []byte
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		dead := false
		for _, h := range hosts {
			out, _ = g.OARCommand(ctx, "oarnodes", "-s", h.Name).Output()
			dead = dead || strings.Contains(string(out), "Dead") || !strings.Contains(string(out), "Alive")
		}
		if !dead {
			return nil
		}
	}
	return fmt.Errorf("e2e: OAR resources of %d beta hosts not Alive after a minute: %s", len(hosts), out)
}

// retireOARNodes sets hosts' resources Dead and waits (up to 30 s) until
// Almighty has applied it.
func (g *Grid) retireOARNodes(ctx context.Context, hosts []*Host) {
	for _, h := range hosts {
		g.OARCommand(ctx, "oarnodesetting", "-s", "Dead", "-h", h.Name).Run()
	}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		alive := false
		for _, h := range hosts {
			out, _ := g.OARCommand(ctx, "oarnodes", "-s", h.Name).Output()
			alive = alive || !strings.Contains(string(out), "Dead")
		}
		if !alive {
			return
		}
	}
}

// closeOnExecInherited marks every descriptor above stderr close-on-exec,
// the ones this process inherited included.
func closeOnExecInherited() {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// keepFile restores path's contents when the grid goes down.
func (g *Grid) keepFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	g.onDown(func() { os.WriteFile(path, data, st.Mode().Perm()) })
	return nil
}

// writeOARSSHConfig maps each beta host's name to its ib0 address for the
// oar user's ssh (Almighty's, the node checks', oarsh's), before the
// package's own "Host *" block.
func (g *Grid) writeOARSSHConfig() error {
	old, err := os.ReadFile(oarSSHConfig)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# gridtui e2e grid %s (restored when it goes down)\n", g.ID)
	for _, h := range g.Cluster(clusterDefs[1].Name) {
		fmt.Fprintf(&b, "Host %s\n  HostName %s\n", h.Name, h.Fast)
	}
	b.Write(old)
	return os.WriteFile(oarSSHConfig, b.Bytes(), 0o644)
}

// proxyPostgres listens on 127.0.0.1:5432 in the frontend's namespace and
// forwards every connection to PostgreSQL on this machine's 127.0.0.1:5432
// (over TCP: its password rules apply, as to the deploy tests' OAR), until
// the grid goes down.
func (g *Grid) proxyPostgres() error {
	l, err := g.Listen(g.Frontend.Name, "127.0.0.1:5432")
	if err != nil {
		return fmt.Errorf("e2e: OAR: database proxy: %w", err)
	}
	g.onDown(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				d, err := net.Dial("tcp4", "127.0.0.1:5432")
				if err != nil {
					return
				}
				defer d.Close()
				go func() { io.Copy(d, c); d.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, d)
			}()
		}
	}()
	return nil
}

// oarDaemon runs an OAR daemon in h's namespace with h's hostname until the
// grid goes down (Almighty forks its modules: its process group goes with
// it).
func (g *Grid) oarDaemon(h *Host, logPath string, argv ...string) error {
	return g.hostDaemon(h, logPath, nil, argv...)
}

// OARCommand runs an OAR command on the frontend (as root).
func (g *Grid) OARCommand(ctx context.Context, argv ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", g.Frontend.Netns}, argv...)...)
}

var oarJobLineRE = regexp.MustCompile(`(?m)^(\d+)\s+([A-Za-z])\s+(\S+)\s.*N=([^ ,)]*)`)

// OARJobs lists OAR's unfinished jobs as "ID STATE USER NAME" lines.
func (g *Grid) OARJobs(ctx context.Context) string {
	out, _ := g.OARCommand(ctx, "oarstat").Output()
	var lines []string
	for _, m := range oarJobLineRE.FindAllStringSubmatch(string(out), -1) {
		lines = append(lines, strings.Join(m[1:], " "))
	}
	return strings.Join(lines, "\n")
}

// deleteOARJobs deletes every unfinished job gridtui or a test submitted
// (named gridtui or oarHolder) and waits (up to 3 minutes) until OAR has
// ended them.
func (g *Grid) deleteOARJobs(ctx context.Context) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var ids []string
		for _, l := range strings.Split(g.OARJobs(ctx), "\n") {
			if f := strings.Fields(l); len(f) == 4 && (f[3] == "gridtui" || f[3] == oarHolder) {
				ids = append(ids, f[0])
			}
		}
		if len(ids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("e2e: OAR jobs left: " + strings.Join(ids, ", "))
		}
		g.OARCommand(ctx, append([]string{"oardel"}, ids...)...).Run()
		time.Sleep(2 * time.Second)
	}
}
