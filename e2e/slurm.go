//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A real Slurm in the grid (Config.Slurm), as on a batch cluster: one
// munged (the namespaces share its socket's file system), slurmctld on
// beta's frontend, and a slurmd in every beta host's namespace, each with
// the host's name as node name and hostname, reached on ib0. Steps run as
// the frontend's user, whose home the nodes share (one file system), as
// batch clusters share homes. The frontend's sshd gives every session
// SLURM_CONF, so salloc, squeue, srun and scancel find the cluster.

// slurmConf is the grid's slurm.conf.
func (g *Grid) slurmConf() string { return filepath.Join(g.Dir, "slurm", "slurm.conf") }

// slurm ports: the controller's, and the first node's (the others count up).
const (
	slurmctldPort = 6917
	slurmdPort    = 6920
)

// launcherLines are the [[site]] lines that say how cluster c's workers start.
func (g *Grid) launcherLines(c clusterDef) string {
	if g.cfg.Slurm && c.Name == clusterDefs[1].Name {
		return "launcher = \"slurm\"\nfrontend = \"" + frontendAlias + "\"\n"
	}
	if g.cfg.OAR && c.Name == clusterDefs[1].Name {
		return "launcher = \"oar\"\nfrontend = \"" + frontendAlias + "\"\n\n  [site.batch]\n  time_limit = \"10m\"\n"
	}
	return "launcher = \"ssh\"\n"
}

// startSlurm writes slurm.conf and starts munged (unless one runs),
// slurmctld and the slurmds, and waits until every node is idle.
func (g *Grid) startSlurm(ctx context.Context) error {
	if g.Frontend == nil {
		return fmt.Errorf("e2e: Config.Slurm needs Config.Frontend (slurmctld runs on the frontend)")
	}
	for _, tool := range []string{"slurmctld", "slurmd", "salloc", "squeue", "munged", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s not found (apt-get install slurmctld slurmd slurm-client munge)", ErrUnsupported, tool)
		}
	}
	dir := filepath.Dir(g.slurmConf())
	for _, d := range []string{"state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("e2e: slurm: %w", err)
		}
	}
	beta := g.Cluster(clusterDefs[1].Name)
	if err := os.WriteFile(g.slurmConf(), g.slurmConfText(dir, beta), 0o644); err != nil {
		return fmt.Errorf("e2e: slurm: %w", err)
	}
	if err := g.startMunge(ctx); err != nil {
		return err
	}
	if err := g.slurmDaemon(g.Frontend, "slurmctld", "-D", "-f", g.slurmConf()); err != nil {
		return err
	}
	for _, h := range beta {
		os.MkdirAll(filepath.Join(dir, "spool", h.Name), 0o755)
		if err := g.slurmDaemon(h, "slurmd", "-D", "-N", h.Name, "-f", g.slurmConf()); err != nil {
			return err
		}
	}
	return g.waitSlurmIdle(ctx, len(beta))
}

func (g *Grid) slurmConfText(dir string, beta []*Host) []byte {
	var b bytes.Buffer
	f := g.Frontend
	fmt.Fprintf(&b, `ClusterName=gte2e%[1]s
SlurmctldHost=%[2]s(%[3]s)
SlurmctldPort=%[4]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool/%%n
SlurmctldPidFile=%[5]s/ctld.pid
SlurmdPidFile=%[5]s/d-%%n.pid
SlurmctldLogFile=%[5]s/log/ctld.log
SlurmdLogFile=%[5]s/log/d-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
`, g.ID, f.Name, f.Fast, slurmctldPort, dir)
	var names []string
	for i, h := range beta {
		fmt.Fprintf(&b, "NodeName=%s NodeAddr=%s NodeHostname=%s Port=%d CPUs=1 State=UNKNOWN\n", h.Name, h.Fast, h.Name, slurmdPort+i)
		names = append(names, h.Name)
	}
	fmt.Fprintf(&b, "PartitionName=beta Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", strings.Join(names, ","))
	return b.Bytes()
}

// startMunge starts munged for the grid unless one runs already.
func (g *Grid) startMunge(ctx context.Context) error {
	if exec.Command("pgrep", "-x", "munged").Run() == nil {
		return nil
	}
	os.MkdirAll("/run/munge", 0o755)
	exec.Command("chown", "munge:munge", "/run/munge").Run()
	// runuser forks munged: kill its whole process group, or munged outlives
	// the grid (holding every descriptor the test inherited).
	cmd := exec.Command("runuser", "-u", "munge", "--", "munged", "-F")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("e2e: munged: %w", err)
	}
	g.onDown(func() { stopMunge(cmd) })
	time.Sleep(300 * time.Millisecond)
	return nil
}

// stopMunge stops the munged that cmd (runuser) started and waits until it
// is gone, so that the next startMunge does not take a dying one for a
// running one. SIGTERM to runuser makes it stop and reap munged; its whole
// process group is killed if that takes too long.
func stopMunge(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	for i := 0; i < 50 && exec.Command("pgrep", "-x", "munged").Run() == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
}

// slurmDaemon runs a Slurm daemon in h's namespace with h's hostname until
// the grid goes down.
func (g *Grid) slurmDaemon(h *Host, argv ...string) error {
	return g.hostDaemon(h, filepath.Join(filepath.Dir(g.slurmConf()), "log", argv[0]+"-"+h.Name+".out"),
		[]string{"SLURM_CONF=" + g.slurmConf()}, argv...)
}

// hostDaemon runs argv in h's network namespace with h's hostname, its
// output to logPath and env added to this process's environment, until the
// grid goes down; then its process group gets SIGTERM, and SIGKILL after
// 10 s (a daemon that forks its modules takes them with it). nsenter, not
// ip netns exec: that one mounts a sysfs of the namespace without the
// cgroup hierarchies slurmd needs.
func (g *Grid) hostDaemon(h *Host, logPath string, env []string, argv ...string) error {
	logf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command("nsenter", append([]string{"--net=/run/netns/" + h.Netns, "unshare", "--uts", "--", "sh", "-c",
		`hostname "$0" && exec "$@"`, h.Name}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("e2e: start %s on %s: %w", argv[0], h.Name, err)
	}
	g.onDown(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return nil
}

// SlurmCommand runs a Slurm client command on the frontend (as root).
func (g *Grid) SlurmCommand(ctx context.Context, argv ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", g.Frontend.Netns}, argv...)...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+g.slurmConf())
	return cmd
}

// SlurmJobs lists the cluster's jobs as "ID NAME STATE" lines.
func (g *Grid) SlurmJobs(ctx context.Context) string {
	out, _ := g.SlurmCommand(ctx, "squeue", "-h", "-o", "%i %j %T").Output()
	return strings.TrimSpace(string(out))
}

func (g *Grid) waitSlurmIdle(ctx context.Context, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		out, _ := g.SlurmCommand(ctx, "sinfo", "-h", "-o", "%T %D").Output()
		if strings.TrimSpace(string(out)) == fmt.Sprintf("idle %d", n) {
			return nil
		}
		select {
		case <-ctx.Done():
			all, _ := g.SlurmCommand(context.Background(), "sinfo").CombinedOutput()
			return fmt.Errorf("e2e: slurm nodes not idle: %s\n%s", all, g.slurmLogs())
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// slurmLogs is the end of every Slurm daemon's log, for failure messages.
func (g *Grid) slurmLogs() string {
	logs, _ := filepath.Glob(filepath.Join(filepath.Dir(g.slurmConf()), "log", "*"))
	var b strings.Builder
	for _, p := range logs {
		data, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(p), strings.Join(lines[max(0, len(lines)-8):], "\n"))
	}
	return b.String()
}
