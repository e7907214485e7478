package deploy

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/internal/exithold"
)

func TestShdPndHasKill(t *testing.T) {
	tests := []struct {
		name   string
		status string
		want   bool
	}{
		{"SIGKILL sent", "Name:\tgridtui\nSigQ:\t0/1\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\nSigBlk:\t0\n", true},
		{"SIGKILL among others", "Name:\tx\nShdPnd:\t0000000000004103\n", true},
		{"nothing pending", "Name:\tx\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n", false},
		{"SIGSTOP pending", "Name:\tx\nShdPnd:\t0000000000040000\n", false},
		{"SIGUSR1 (bit 9 of the mask is signal 10)", "Name:\tx\nShdPnd:\t0000000000000200\n", false},
		{"no ShdPnd line", "Name:\tx\nSigPnd:\t0000000000000100\n", false},
		{"garbled", "Name:\tx\nShdPnd:\tzz\n", false},
		{"last line without newline", "Name:\tx\nShdPnd:\t100", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := shdPndHasKill([]byte(tc.status)); got != tc.want {
				t.Errorf("shdPndHasKill = %v, want %v", got, tc.want)
			}
		})
	}
}

// killDelivered reports whether SIGKILL has been sent to process pid as a
// whole, as the kill watch reads it (shdPndHasKill).
func killDelivered(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	return err == nil && shdPndHasKill(b)
}

// holdExit holds a thread of pid short of its exit once it is killed
// (exithold); it skips the test where tracing is not allowed.
func holdExit(t *testing.T, pid int) *exithold.Hold {
	t.Helper()
	h, err := exithold.New(pid)
	if err != nil {
		t.Skip(err)
	}
	return h
}

// threads counts the threads of process pid (0 when it is gone).
func threads(pid int) int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	return len(ents)
}

// TestKillDeliveredBeforeExit confirms what the kill watch relies on: a
// process sent SIGKILL shows it in its shared pending set at once, and
// keeps it while a thread of it has not exited yet (its main thread a
// zombie by then) and until it is reaped; a process that exits on its own
// or is stopped never shows it.
func TestKillDeliveredBeforeExit(t *testing.T) {
	start := func(node string) (*exec.Cmd, int, io.Closer) {
		t.Helper()
		c := exec.Command(os.Args[0], "worker")
		stdin, _ := c.StdinPipe()
		stdout, _ := c.StdoutPipe()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		b := testBoot(inventory.Host{Name: node})
		b.Node = node
		if _, err := handshake(testCtx(t), stdin, stdout, b, 30*time.Second, func() { c.Process.Kill() }); err != nil {
			t.Fatal(err)
		}
		return c, c.Process.Pid, stdin
	}

	c, pid, _ := start("alpha-1")
	if killDelivered(pid) {
		t.Fatal("SIGKILL seen in a process not sent any")
	}
	hold := holdExit(t, pid)
	defer hold.Release()
	syscall.Kill(pid, syscall.SIGKILL)
	if !killDelivered(pid) {
		t.Fatal("SIGKILL not seen right after it was sent")
	}
	// The held thread has not exited; the main thread does, and the
	// process cannot be waited for.
	deadline := time.Now().Add(10 * time.Second)
	for !leaderZombie(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !leaderZombie(pid) || threads(pid) < 2 {
		t.Fatalf("killed process: main thread a zombie %v, %d threads; want a zombie with the held thread alive", leaderZombie(pid), threads(pid))
	}
	if !killDelivered(pid) {
		t.Fatal("SIGKILL no longer seen while a thread of the process remains")
	}
	hold.Release()
	for threads(pid) > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !killDelivered(pid) {
		t.Error("SIGKILL no longer seen once every thread has exited, before the reap")
	}
	if err := c.Wait(); !killedHard(err) {
		t.Errorf("wait: %v, want a SIGKILL", err)
	}

	// A process that exits by itself (stdin closed) is not mistaken.
	c, pid, stdin := start("alpha-2")
	c.Process.Signal(syscall.SIGSTOP)
	time.Sleep(50 * time.Millisecond)
	if killDelivered(pid) {
		t.Error("SIGKILL seen in a stopped process")
	}
	c.Process.Signal(syscall.SIGCONT)
	stdin.Close() // the test worker exits at its stdin's end
	for !leaderZombie(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if killDelivered(pid) {
		t.Error("SIGKILL seen in a process that exited on its own")
	}
	if err := c.Wait(); err != nil {
		t.Errorf("wait: %v", err)
	}
}

// count is how many events of host are in phase p.
func (l *eventLog) count(host string, p Phase) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.ev {
		if e.Host == host && e.Phase == p {
			n++
		}
	}
	return n
}

// leaderZombie reports whether the main thread of pid has exited (state Z).
func leaderZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := strings.LastIndexByte(string(b), ')')
	return err == nil && i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// TestKilledLocalWorkerReportedBeforeGone kills a local worker one of
// whose threads cannot exit yet: its end is reported (once, as a SIGKILL)
// within the watch's interval, before its process is gone, and Stop still
// waits for it to be gone.
func TestKilledLocalWorkerReportedBeforeGone(t *testing.T) {
	inv, hosts := localInventory(t, "alpha-1")
	var log eventLog
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, Options{HelloTimeout: 30 * time.Second, Events: log.add})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	w := ws[0]
	hold := holdExit(t, w.Hello.PID)
	defer hold.Release()
	sent := time.Now()
	syscall.Kill(w.Hello.PID, syscall.SIGKILL)
	select {
	case <-w.Done():
	case <-time.After(killWatchInterval + 2*time.Second):
		t.Fatalf("killed worker not reported within %v", killWatchInterval+2*time.Second)
	}
	lag := time.Since(sent)
	select {
	case <-w.Gone():
		t.Fatal("the process is gone though a thread of it is held: the report did not come from the kill watch")
	default:
	}
	err = w.Err()
	if !errors.Is(err, ErrKilled) || !errors.Is(err, ErrWorkerExited) || !strings.Contains(err.Error(), "killed (SIGKILL): signal: killed") {
		t.Fatalf("error %v, want a SIGKILL wrapping ErrKilled and ErrWorkerExited", err)
	}
	t.Logf("reported %v after the signal: %v", lag.Round(time.Millisecond), err)
	stopped := make(chan error, 1)
	go func() { stopped <- w.Stop(testCtx(t)) }()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) before the process was gone", err)
	case <-time.After(300 * time.Millisecond):
	}
	hold.Release()
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitGone(t, w.Hello.PID)
	if w.Err() == nil || w.Err().Error() != err.Error() {
		t.Errorf("error after the reap %v, want it unchanged: %v", w.Err(), err)
	}
	if n := log.count("alpha-1", PhaseFailed); n != 1 {
		t.Errorf("%d failures reported, want 1", n)
	}
}

// TestStopKillNotAFailure stops a worker that ignores its stdin closing:
// Stop kills it, and the kill watch seeing that SIGKILL reports no failure.
func TestStopKillNotAFailure(t *testing.T) {
	inv, hosts := localInventory(t, "stuck-1")
	boot := func(h inventory.Host) Boot { b := testBoot(h); b.Node = h.Name; return b }
	var log eventLog
	ws, err := StartWorkers(testCtx(t), inv, hosts, boot, Options{HelloTimeout: 30 * time.Second, StopTimeout: 200 * time.Millisecond, Events: log.add})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	w := ws[0]
	hold := holdExit(t, w.Hello.PID)
	defer hold.Release()
	stopped := make(chan error, 1)
	go func() { stopped <- w.Stop(testCtx(t)) }()
	select {
	case <-w.Done():
	case <-time.After(killWatchInterval + 5*time.Second):
		t.Fatal("worker killed by Stop not seen ended")
	}
	select {
	case <-w.Gone():
		t.Fatal("the process is gone though a thread of it is held: the end did not come from the kill watch")
	default:
	}
	if err := w.Err(); err != nil {
		t.Errorf("a worker killed by Stop reported as failed: %v", err)
	}
	hold.Release()
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitGone(t, w.Hello.PID)
	if n := log.count("stuck-1", PhaseFailed); n != 0 {
		t.Errorf("%d failures reported for a stopped worker, want 0", n)
	}
}
