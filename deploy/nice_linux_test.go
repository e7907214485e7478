package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLocalWorkersRunNicer checks that every thread of a local worker runs
// localWorkerNice nicer than the console that started it, and
// localMemberNice nicer once it yields.
func TestLocalWorkersRunNicer(t *testing.T) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Skip(err)
	}
	own := 20 - prio
	if own+localWorkerNice > 19 {
		t.Skipf("this process runs at nice %d already", own)
	}
	inv, hosts := localInventory(t, "alpha-1")
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, Options{HelloTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer ws[0].Stop(testCtx(t))
	checkNice(t, ws[0].Hello.PID, own+localWorkerNice)
	// Told it coordinates nothing on a crowded host, it gives way.
	ws[0].Yield(true)
	checkNice(t, ws[0].Hello.PID, min(own+localMemberNice, 19))
}

// checkNice checks that every thread of process pid runs at nice want.
func checkNice(t *testing.T, pid, want int) {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("threads of the worker: %v", err)
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		// Field 19 of stat is the nice value; fields after the command's
		// closing parenthesis start at field 3.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		nice, _ := strconv.Atoi(fields[19-3])
		if nice != want {
			t.Errorf("worker thread %s at nice %d, want %d", filepath.Base(filepath.Dir(f)), nice, want)
		}
	}
}
