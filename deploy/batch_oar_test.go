package deploy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
)

// oarUser submits the test's jobs: OAR refuses jobs of root and oar.
const oarUser = "gridtui-oar"

// oarSetup makes this machine's OAR (Debian's oar-server, oar-node,
// oar-user with PostgreSQL) runnable by the tests, idempotently: the
// database, a configuration without cpusets (a container has none to
// give), the test's submitting user, and localhost as a node of two
// resources (cores).
const oarSetup = `set -e
v=$(pg_lsclusters -h | awk 'NR==1{print $1" "$2}')
[ -n "$v" ] || { echo "no PostgreSQL cluster" >&2; exit 1; }
pg_lsclusters -h | grep -q online || pg_ctlcluster $v start
sed -i 's/^DB_BASE_PASSWD=""/DB_BASE_PASSWD="gridtui-test"/;s/^DB_BASE_PASSWD_RO=""/DB_BASE_PASSWD_RO="gridtui-test-ro"/;s|^JOB_RESOURCE_MANAGER_FILE=.*|JOB_RESOURCE_MANAGER_FILE="/etc/oar/job_resource_manager_none.pl"|;s/^CPUSET_PATH=/#&/' /etc/oar/oar.conf
printf '#!/usr/bin/perl\n# gridtui tests: no cpusets in this container\nexit(0);\n__END__\n' >/etc/oar/job_resource_manager_none.pl
sed -i 's/^UsePrivilegeSeparation/#&/' /etc/oar/sshd_config
mkdir -p /run/sshd
su postgres -c "psql -lqt" | cut -d'|' -f1 | grep -qw oar || oar-database --create --db-is-local --db-admin-user=postgres >/dev/null
id ` + oarUser + ` >/dev/null 2>&1 || useradd -m -s /bin/sh ` + oarUser + `
oarproperty -l | grep -qx core || oarproperty -a core >/dev/null
oarnodes -s localhost 2>/dev/null | grep -q ' : ' || { oarnodesetting -a -h localhost -p core=1 >/dev/null; oarnodesetting -a -h localhost -p core=2 >/dev/null; }
oarnodesetting -s Alive -h localhost >/dev/null
`

// oarTest is a real OAR on this machine: its server (Almighty) and its
// node's sshd on port 6667, started for the test, localhost as the one
// node, and an in-process SSH server as the frontend whose commands run as
// oarUser in that user's home (the node's home too, as on Grid'5000).
type oarTest struct {
	front *testServer
	key   testKey
	home  string
	cred  *syscall.Credential
}

func newOAR(t *testing.T) *oarTest {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a real OAR needs root (its server and node daemons)")
	}
	for _, tool := range []string{"oarsub", "oarstat", "oardel", "oarsh", "/usr/sbin/Almighty", "/usr/sbin/sshd", "pg_lsclusters", "oar-database"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install oar-server oar-node oar-user postgresql)", tool)
		}
	}
	if c, err := net.Dial("tcp", "127.0.0.1:6666"); err == nil { // Almighty's SERVER_PORT
		c.Close()
		t.Skip("an OAR server already runs on this machine")
	}
	// PostgreSQL, which the setup may start, outlives the test: it must not
	// inherit a descriptor of this process's parent (flock(1)'s lock).
	closeOnExecInherited()
	if out, err := exec.Command("sh", "-c", oarSetup).CombinedOutput(); err != nil {
		t.Skipf("OAR setup: %v: %s", err, out)
	}
	u, err := user.Lookup(oarUser)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	o := &oarTest{home: u.HomeDir, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	os.RemoveAll(filepath.Join(o.home, "work"))
	oarDaemon(t, "/usr/sbin/sshd", "-D", "-f", "/etc/oar/sshd_config")
	oarDaemon(t, "/usr/sbin/Almighty")
	o.deleteJobs(t) // a test that failed may have left some
	o.key = newTestKey(t, "")
	o.front = newTestServer(t, "127.0.0.1", o.key.signer.PublicKey())
	o.front.home, o.front.cred = o.home, o.cred
	t.Cleanup(func() { o.deleteJobs(t) }) // before the daemons stop
	return o
}

// deleteJobs deletes every unfinished job and waits until OAR is done.
func (o *oarTest) deleteJobs(t *testing.T) {
	for _, id := range o.jobIDs() {
		exec.Command("oardel", id).Run()
	}
	o.waitNoJobs(t, "deleting the jobs")
}

func run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// oarDaemon runs an OAR daemon in a process group of its own until the
// test ends (Almighty forks its modules: the group goes with it).
func oarDaemon(t *testing.T, args ...string) {
	c := exec.Command(args[0], args[1:]...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// as runs a command as the test's OAR user in its home.
func (o *oarTest) as(args ...string) *exec.Cmd {
	c := exec.Command(args[0], args[1:]...)
	c.Dir = o.home
	c.Env = append(os.Environ(), "HOME="+o.home, "PWD="+o.home) // oarsub takes $PWD as the job's directory
	c.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred}
	return c
}

var oarstatLineRE = regexp.MustCompile(`(?m)^(\d+)\s+([A-Za-z])\s`)

// jobIDs lists the ids of the jobs OAR has not finished.
func (o *oarTest) jobIDs() []string {
	out, _ := exec.Command("oarstat").Output()
	var ids []string
	for _, m := range oarstatLineRE.FindAllStringSubmatch(string(out), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// waitNoJobs fails the test if OAR still has unfinished jobs after a while
// (OAR deletes a running job in a few of its scheduling rounds).
func (o *oarTest) waitNoJobs(t *testing.T, why string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if len(o.jobIDs()) == 0 {
			return
		}
		time.Sleep(time.Second)
	}
	out, _ := exec.Command("oarstat").Output()
	t.Errorf("%s: OAR jobs left:\n%s", why, out)
}

// hold submits a job holding the node until the returned function deletes
// it.
func (o *oarTest) hold(t *testing.T) func() {
	t.Helper()
	out, err := o.as("oarsub", "-n", "holder", "-l", "nodes=1,walltime=0:10:00", "sleep 600").CombinedOutput()
	id := sched.AllocatorFor("oar").JobID(string(out))
	if err != nil || id == "" {
		t.Fatalf("holder job: %v: %s", err, out)
	}
	deadline := time.Now().Add(3 * time.Minute) // OAR launches a job in a few of its rounds, slow on a loaded machine
	for {
		st, _ := exec.Command("oarstat", "-s", "-j", id).Output()
		if strings.Contains(string(st), "Running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("holder job %s: %s", id, st)
		}
		time.Sleep(time.Second)
	}
	var once bool
	stop := func() {
		if !once {
			once = true
			exec.Command("oardel", id).Run()
		}
	}
	t.Cleanup(stop)
	return stop
}

// inventory is an OAR site of one node, localhost, behind the frontend.
func (o *oarTest) inventory(t *testing.T) (*inventory.Inventory, []inventory.Host, Options) {
	t.Helper()
	host, port := o.front.host()
	site := inventory.Site{Name: "g5k", Launcher: "oar", Frontend: fmt.Sprintf("%s@%s:%d", oarUser, host, port),
		Batch: sched.BatchOptions{TimeLimit: 5 * time.Minute}}
	hosts := []inventory.Host{{Name: "localhost", Site: "g5k", Cluster: "c", IdentityFiles: []string{o.key.file}, Workdir: "work"}}
	site.Clusters = []inventory.Cluster{{Name: "c", Hosts: hosts}}
	opt := testOptions(writeKnownHosts(t, o.front))
	exe, _ := os.Executable()
	opt.Binary = exe
	opt.HelloTimeout = 60 * time.Second
	return &inventory.Inventory{Sites: []inventory.Site{site}}, hosts, opt
}

// deploy puts the worker in the frontend's home (the node's), owned by the
// OAR user: the in-process SFTP server writes as root.
func (o *oarTest) deploy(t *testing.T, inv *inventory.Inventory, hosts []inventory.Host, opt Options) {
	t.Helper()
	if _, err := Deploy(testCtx(t), inv, hosts, opt); err != nil {
		t.Fatalf("deploy through the frontend: %v", err)
	}
	run(t, "chown", "-R", fmt.Sprintf("%d:%d", o.cred.Uid, o.cred.Gid), o.home)
}

func oarCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A job through a real OAR waits while another job holds the node, its
// state shown with OAR's job id, then runs with its worker started by
// oarsh; a killed worker ends with an error naming the node; stopping the
// workers deletes the job, and no worker is left.
func TestOARPendingThenRuns(t *testing.T) {
	o := newOAR(t)
	inv, hosts, opt := o.inventory(t)
	o.deploy(t, inv, hosts, opt)
	release := o.hold(t)
	pending := make(chan string, 1)
	opt.Events = func(e Event) {
		if e.Phase == PhasePending && strings.Contains(e.Detail, "OAR job") {
			select {
			case pending <- e.Detail:
			default:
			}
		}
	}
	type res struct {
		ws  []*Worker
		err error
	}
	done := make(chan res, 1)
	go func() {
		ws, err := StartWorkers(oarCtx(t), inv, hosts, testBoot, opt)
		done <- res{ws, err}
	}()
	select {
	case d := <-pending:
		if !strings.Contains(d, "waiting") {
			t.Errorf("pending detail %q, want the OAR job waiting", d)
		}
		t.Logf("pending: %s", d)
	case r := <-done:
		t.Fatalf("workers started while the node was held: %v", r.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("no pending status")
	}
	release()
	r := <-done
	if r.err != nil {
		t.Fatalf("start after the holder left: %v", r.err)
	}
	w := r.ws[0]
	if w.Hello.Node != "n-localhost" {
		t.Errorf("worker says it is %s", w.Hello.Node)
	}
	syscall.Kill(w.Hello.PID, syscall.SIGKILL)
	select {
	case <-w.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the killed worker's oarsh did not end")
	}
	if err := w.Err(); !errors.Is(err, ErrWorkerExited) || !strings.Contains(err.Error(), "localhost") {
		t.Errorf("killed worker: %v, want ErrWorkerExited naming localhost", err)
	}
	stopAll(r.ws, opt)
	o.waitNoJobs(t, "after a killed worker")
}

// Workers stopped normally release the job; cancelling while the job waits
// (Ctrl-C) deletes it too.
func TestOARReleased(t *testing.T) {
	o := newOAR(t)
	inv, hosts, opt := o.inventory(t)
	o.deploy(t, inv, hosts, opt)
	ws, err := StartWorkers(oarCtx(t), inv, hosts, testBoot, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.jobIDs()) != 1 {
		t.Errorf("jobs while the worker runs: %v, want gridtui's", o.jobIDs())
	}
	stopAll(ws, opt)
	o.waitNoJobs(t, "after the workers stopped")
	if syscall.Kill(ws[0].Hello.PID, 0) == nil {
		t.Errorf("worker (pid %d) still runs", ws[0].Hello.PID)
	}
	o.hold(t)
	ctx, cancel := context.WithCancel(oarCtx(t))
	opt.Events = func(e Event) {
		if e.Phase == PhasePending && strings.Contains(e.Detail, "OAR job") {
			cancel()
		}
	}
	_, err = StartWorkers(ctx, inv, hosts, testBoot, opt)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while pending: %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(o.jobIDs()) > 1 && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	if ids := o.jobIDs(); len(ids) > 1 {
		t.Errorf("gridtui's job left after it was given up: %v", ids)
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
