package deploy

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOOMKillLine finds the out-of-memory killer's line for a process in a
// kernel log, and only for that process.
func TestOOMKillLine(t *testing.T) {
	log := `[ 12.5] eth0: link up
[ 91.2] Out of memory: Killed process 12345 (gridtui) total-vm:33554432kB, anon-rss:24117248kB, file-rss:0kB
[ 92.0] Memory cgroup out of memory: Killed process 777 (gridtui) total-vm:1024kB
[ 93.0] Out of memory: Killed process 123456 (other) total-vm:1kB`
	tests := map[string]struct {
		pid  int
		want string
	}{
		"global":       {12345, "Out of memory: Killed process 12345 (gridtui) total-vm:33554432kB, anon-rss:24117248kB, file-rss:0kB"},
		"cgroup":       {777, "out of memory: Killed process 777 (gridtui) total-vm:1024kB"},
		"prefix pid":   {1234, ""},
		"not in there": {42, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := oomKillLine(log, tc.pid); got != tc.want {
				t.Errorf("oomKillLine(%d) = %q, want %q", tc.pid, got, tc.want)
			}
		})
	}
}

// TestKilledWorkerSaysSIGKILL kills a running local worker with SIGKILL:
// its error wraps ErrKilled (a worker that failed on its own does not).
func TestKilledWorkerSaysSIGKILL(t *testing.T) {
	inv, hosts := localInventory(t, "alpha-1")
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, Options{HelloTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	w := ws[0]
	defer w.Stop(testCtx(t))
	syscall.Kill(w.Hello.PID, syscall.SIGKILL)
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("killed worker not seen to exit")
	}
	err = w.Err()
	if !errors.Is(err, ErrKilled) || !errors.Is(err, ErrWorkerExited) || !strings.Contains(err.Error(), "killed (SIGKILL)") {
		t.Fatalf("error %v, want one wrapping ErrKilled and ErrWorkerExited", err)
	}
	if errors.Is(err, ErrOutOfMemory) {
		t.Errorf("a kill -9 read as the OOM killer's: %v", err)
	}
	if killedHard(exec.Command("false").Run()) {
		t.Error("an exit status 1 read as SIGKILL")
	}
}

// TestOOMKillCount checks that the host's count of out-of-memory kills is
// read where the kernel gives it, and that a worker's OOM lookup skips the
// kernel's log while the count has not moved.
func TestOOMKillCount(t *testing.T) {
	n, ok := oomKillCount()
	if !ok {
		t.Skip("no oom_kill in /proc/vmstat")
	}
	if again, _ := oomKillCount(); again < n {
		t.Fatalf("oom_kill went back from %d to %d", n, again)
	}
	if line := localOOMKiller(os.Getpid())(); line != "" {
		t.Errorf("no kill since: got line %q", line)
	}
}
