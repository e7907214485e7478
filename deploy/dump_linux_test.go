package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestDumpStacks asks a local worker that ignores its stdin for its
// goroutine stacks: it ends, its stacks are in its log file after the
// console's line saying why, and its end is not a failure. A worker stopped
// by SIGSTOP is left as it is (SIGQUIT would stay pending): DumpStacks
// says so at once, and a kill of it afterwards is its failure as before.
func TestDumpStacks(t *testing.T) {
	inv, hosts := localInventory(t, "stuck-1", "stuck-2")
	boot := func(h inventory.Host) Boot {
		b := testBoot(h)
		b.Node, b.LogFile = h.Name, WorkerLogFile(h.Name)
		return b
	}
	var log eventLog
	ws, err := StartWorkers(testCtx(t), inv, hosts, boot, Options{HelloTimeout: 30 * time.Second, StopTimeout: 200 * time.Millisecond, Events: log.add})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	hung, stopped := ws[0], ws[1]
	if !hung.DumpStacks(20 * time.Second) {
		t.Fatal("DumpStacks: the worker did not end on SIGQUIT")
	}
	if err := hung.Err(); err != nil {
		t.Errorf("a worker asked for its stacks reported as failed: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(localWorkdir(hosts[0]), WorkerLogFile("stuck-1")))
	if err != nil {
		t.Fatal(err)
	}
	log1 := string(data)
	why := strings.Index(log1, "SIGQUIT sent for its goroutine stacks")
	if why < 0 || !strings.Contains(log1[why:], "SIGQUIT: quit") || !strings.Contains(log1[why:], "\ngoroutine 1 ") {
		t.Errorf("the log holds no goroutine stacks after the console's line:\n%s", log1)
	}
	if !regexp.MustCompile(`SIGQUIT sent for its goroutine stacks, which follow" threads="[RSD] \d+`).MatchString(log1) {
		t.Errorf("the console's line gives no thread states:\n%s", log1[why:min(len(log1), why+300)])
	}
	waitGone(t, hung.Hello.PID)

	if err := syscall.Kill(stopped.Hello.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for st, _ := processState(stopped.Hello.PID); st != 'T'; st, _ = processState(stopped.Hello.PID) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	if stopped.DumpStacks(20 * time.Second) {
		t.Error("DumpStacks ended a stopped worker")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("DumpStacks waited %v on a stopped worker", d)
	}
	if !alive(stopped.Hello.PID) {
		t.Error("the stopped worker is gone after DumpStacks")
	}
	// Left as it was: its end by a signal now is a failure, as before.
	syscall.Kill(stopped.Hello.PID, syscall.SIGKILL)
	select {
	case <-stopped.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the killed worker not seen ended")
	}
	if err := stopped.Err(); !errors.Is(err, ErrKilled) {
		t.Errorf("a worker killed after a refused DumpStacks: error %v, want a SIGKILL failure", err)
	}
	waitGone(t, stopped.Hello.PID)
	// The test worker logs nothing itself: any log is the console's.
	if data, _ := os.ReadFile(filepath.Join(localWorkdir(hosts[1]), WorkerLogFile("stuck-2"))); strings.Contains(string(data), "SIGQUIT") {
		t.Errorf("the stopped worker's log says SIGQUIT was sent:\n%s", data)
	}
	if n := log.count("stuck-1", PhaseFailed); n != 0 {
		t.Errorf("%d failures reported for the worker asked for its stacks, want 0", n)
	}
}
