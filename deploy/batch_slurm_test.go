package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// slurmTest is a real Slurm on this machine (Debian's slurmctld, slurmd,
// slurm-client and munge): a controller and one slurmd per node name, all
// on loopback ports of their own, and an in-process SSH server as the
// site's frontend (its commands see the cluster's SLURM_CONF).
type slurmTest struct {
	conf  string
	nodes []string
	front *testServer
	key   testKey
}

// newSlurm starts the cluster, or skips when this machine cannot run it.
func newSlurm(t *testing.T, nodes ...string) *slurmTest {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a real Slurm needs root (slurmd runs the steps)")
	}
	for _, tool := range []string{"slurmctld", "slurmd", "salloc", "srun", "squeue", "scancel", "munged"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				t.Skipf("%s not installed (apt-get install slurmctld slurmd slurm-client munge)", tool)
			}
		}
	}
	startMunge(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	ports := freePorts(t, 2+len(nodes))
	var b strings.Builder
	fmt.Fprintf(&b, `ClusterName=gtest
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool/%%n
SlurmctldPidFile=%[3]s/ctld.pid
SlurmdPidFile=%[3]s/d-%%n.pid
SlurmctldLogFile=%[3]s/ctld.log
SlurmdLogFile=%[3]s/d-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
`, ports[0], ports[1], dir)
	for i, n := range nodes {
		fmt.Fprintf(&b, "NodeName=%s NodeHostname=localhost Port=%d CPUs=1 State=UNKNOWN\n", n, ports[2+i])
		os.MkdirAll(filepath.Join(dir, "spool", n), 0o755)
	}
	fmt.Fprintf(&b, "PartitionName=gp Nodes=%s Default=YES MaxTime=INFINITE State=UP\n", strings.Join(nodes, ","))
	os.MkdirAll(filepath.Join(dir, "state"), 0o755)
	s := &slurmTest{conf: filepath.Join(dir, "slurm.conf"), nodes: nodes}
	if err := os.WriteFile(s.conf, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s.daemon(t, "slurmctld", "-D", "-f", s.conf)
	for _, n := range nodes {
		s.daemon(t, "slurmd", "-D", "-N", n, "-f", s.conf)
	}
	s.waitIdle(t)
	s.key = newTestKey(t, "")
	s.front = newTestServer(t, "127.0.0.1", s.key.signer.PublicKey())
	s.front.env = []string{"SLURM_CONF=" + s.conf}
	return s
}

// startMunge starts munged for the test unless one runs.
func startMunge(t *testing.T) {
	if exec.Command("pgrep", "-x", "munged").Run() == nil {
		return
	}
	os.MkdirAll("/run/munge", 0o755)
	exec.Command("chown", "munge:munge", "/run/munge").Run()
	// runuser forks munged: kill its whole process group, or munged outlives
	// the test.
	c := exec.Command("runuser", "-u", "munge", "--", "munged", "-F")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Skipf("munged: %v", err)
	}
	t.Cleanup(func() {
		// SIGTERM to runuser makes it stop and reap munged; wait until munged
		// is gone, so that the next test does not take a dying one for a
		// running one.
		c.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			<-done
		}
		for i := 0; i < 50 && exec.Command("pgrep", "-x", "munged").Run() == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	time.Sleep(300 * time.Millisecond)
}

// freePorts finds n free ports below the kernel's ephemeral range
// (32768 and up), so that no connection of another program on this busy
// machine takes one between this check and the daemons' bind.
func freePorts(t *testing.T, n int) []int {
	var out []int
	var ls []net.Listener
	for p := 20000 + rand.IntN(10000); len(out) < n && p < 32768; p++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		out = append(out, p)
	}
	for _, l := range ls {
		l.Close()
	}
	if len(out) < n {
		t.Fatalf("no %d free ports below 32768", n)
	}
	return out
}

// daemon runs a Slurm daemon in the foreground until the test ends.
func (s *slurmTest) daemon(t *testing.T, args ...string) {
	c := exec.Command(args[0], args[1:]...)
	c.Env = append(os.Environ(), "SLURM_CONF="+s.conf)
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	t.Cleanup(func() {
		c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.Process.Kill()
			<-done
		}
	})
}

// cmd runs a Slurm client command against the test cluster.
func (s *slurmTest) cmd(args ...string) *exec.Cmd {
	c := exec.Command(args[0], args[1:]...)
	c.Env = append(os.Environ(), "SLURM_CONF="+s.conf)
	return c
}

func (s *slurmTest) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := s.cmd("sinfo", "-h", "-o", "%T %D").Output()
		if strings.TrimSpace(string(out)) == fmt.Sprintf("idle %d", len(s.nodes)) {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	out, _ := s.cmd("sinfo").CombinedOutput()
	var logs strings.Builder
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(s.conf), "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&logs, "== %s\n%s\n", filepath.Base(f), strings.Join(lines[max(0, len(lines)-6):], "\n"))
	}
	t.Fatalf("the test cluster's nodes never became idle:\n%s%s", out, logs.String())
}

// jobs lists the cluster's jobs ("ID NAME STATE").
func (s *slurmTest) jobs() string {
	out, _ := s.cmd("squeue", "-h", "-o", "%i %j %T").Output()
	return strings.TrimSpace(string(out))
}

// waitNoJobs fails the test if the cluster still has jobs after a while.
func (s *slurmTest) waitNoJobs(t *testing.T, why string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if s.jobs() == "" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Errorf("%s: allocations left: %s", why, s.jobs())
}

// hold allocates nodes for the test until the returned function is called;
// the allocation's job id and node list are in *id and *list.
func (s *slurmTest) hold(t *testing.T, nodes string) func() {
	t.Helper()
	stop, _, _ := s.holdJob(t, nodes)
	return stop
}

func (s *slurmTest) holdJob(t *testing.T, nodes string) (stop func(), id, list string) {
	t.Helper()
	c := s.cmd("salloc", "-J", "holder", "-w", nodes, "sh", "-c", "echo held $SLURM_JOB_ID $SLURM_JOB_NODELIST; exec cat >/dev/null")
	in, _ := c.StdinPipe()
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 || f[0] != "held" {
		t.Fatalf("holder allocation of %s: %q %v", nodes, line, err)
	}
	var once bool
	stop = func() {
		if !once {
			once = true
			in.Close()
			c.Wait()
		}
	}
	t.Cleanup(stop)
	return stop, f[1], f[2]
}

// inventory is a Slurm site with the test's nodes behind its frontend, the
// test binary as the worker in the frontend's (shared) home.
func (s *slurmTest) inventory(t *testing.T) (*inventory.Inventory, []inventory.Host, Options) {
	t.Helper()
	host, port := s.front.host()
	site := inventory.Site{Name: "hpc", Launcher: "slurm", Frontend: fmt.Sprintf("tester@%s:%d", host, port)}
	var hosts []inventory.Host
	for _, n := range s.nodes {
		hosts = append(hosts, inventory.Host{Name: n, Site: "hpc", Cluster: "c", IdentityFiles: []string{s.key.file}, Workdir: "work"})
	}
	site.Clusters = []inventory.Cluster{{Name: "c", Hosts: hosts}}
	opt := testOptions(writeKnownHosts(t, s.front))
	exe, _ := os.Executable()
	opt.Binary = exe
	opt.HelloTimeout = 60 * time.Second
	return &inventory.Inventory{Sites: []inventory.Site{site}}, hosts, opt
}
