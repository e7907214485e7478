package owner

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testOwner is the user who plays the desktop's owner: a user of its own,
// as on a lab machine (created if missing; needs root).
const testOwner = "gridtui-owner"

func ownerCred(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("playing another user's owner needs root")
	}
	if _, err := user.Lookup(testOwner); err != nil {
		if out, err := exec.Command("useradd", "-M", "-s", "/bin/sh", testOwner).CombinedOutput(); err != nil {
			t.Skipf("useradd %s: %v: %s", testOwner, err, out)
		}
	}
	u, err := user.Lookup(testOwner)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// burn starts a CPU-bound shell loop in a process group of its own, as
// cred when set, and stops it when the test ends.
func burn(t testing.TB, cred *syscall.Credential) *exec.Cmd {
	t.Helper()
	c := exec.Command("sh", "-c", "while :; do :; done")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			syscall.Kill(-c.Process.Pid, syscall.SIGCONT)
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
		})
	}
	t.Cleanup(stop)
	return c
}

// procState is the state letter of pid in /proc/PID/stat (T: stopped).
func procState(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "?"
	}
	i := strings.LastIndexByte(string(data), ')')
	return strings.Fields(string(data[i+1:]))[0]
}

// The test plays the owner: a CPU load started as another user suspends
// the part (its process group SIGSTOPped, at nice 19) within the policy's
// bound, every decision logged with its reason; when the owner's load
// ends, the part continues.
func TestGovernorOwnerLoad(t *testing.T) {
	cred := ownerCred(t)
	part := burn(t, nil)
	if err := Lower(part.Process.Pid, 100, 1); err != nil {
		t.Fatal(err)
	}
	if prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, part.Process.Pid); 20-prio != 19 {
		t.Errorf("part's nice %d, want 19", 20-prio)
	}
	p := Default()
	p.IdleToStart, p.IdleToContinue, p.ActiveIdle, p.CPUBusyFor = 0, 0, 0, time.Second
	// The machine the tests run on may be shared by dozens of runnable
	// processes (a load average of 50 on 2 cores): a busy loop of the owner
	// gets a few percent of a core there, so the thresholds are the
	// owner's share of that, not HTCondor's half a core.
	p.OwnerCPUIdle, p.OwnerCPUBusy = 0.005, 0.02
	s := NewSampler()
	s.Users = []uint32{cred.Uid}
	s.Exclude(part.Process.Pid)
	var mu sync.Mutex
	var log []Decision
	g := &Governor{Policy: p, Interval: 250 * time.Millisecond, Sample: s.Sample,
		Apply: (&Part{Pgid: part.Process.Pid}).Apply,
		Log: func(d Decision, err error) {
			if err != nil {
				t.Errorf("%v: %v", d, err)
			}
			mu.Lock()
			log = append(log, d)
			mu.Unlock()
			t.Logf("decision: %v", d)
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go g.Run(ctx)
	waitFor := func(what string, bound time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for time.Since(start) < bound {
			if ok() {
				return time.Since(start)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s not within %v", what, bound)
		return 0
	}
	last := func(a Action) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(log) > 0 && log[len(log)-1].Action == a
		}
	}
	waitFor("start", 5*time.Second, last(Start))
	owner := burn(t, cred)
	// The bound: cpu_busy_for, plus two sampling intervals to see the
	// load, plus slack for this busy machine.
	took := waitFor("suspend", p.CPUBusyFor+5*time.Second, last(Suspend))
	// A nice-19 process takes the stop when it next gets a CPU.
	waitFor("the part stopped (state T)", 5*time.Second, func() bool { return procState(part.Process.Pid) == "T" })
	t.Logf("suspended %v after the owner's load began", took)
	syscall.Kill(-owner.Process.Pid, syscall.SIGKILL)
	waitFor("continue", 5*time.Second, last(Continue))
	waitFor("the part running again", 5*time.Second, func() bool { return procState(part.Process.Pid) != "T" })
	mu.Lock()
	defer mu.Unlock()
	for _, d := range log {
		if d.Reason == "" {
			t.Errorf("decision without a reason: %+v", d)
		}
	}
}
