package exithold

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// Hold is one traced thread of a process.
type Hold struct {
	pid, tid int
	req      chan func()
	done     chan struct{}
}

const (
	ptraceSeize      = 0x4206
	ptraceOTraceExit = 0x40
)

// New traces a thread of process pid other than its main one. Every ptrace
// request comes from the one OS thread that traces. It fails where tracing
// is not allowed (errors.Is(err, syscall.EPERM)).
func New(pid int) (*Hold, error) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, fmt.Errorf("exithold: threads of %d: %w", pid, err)
	}
	h := &Hold{pid: pid, req: make(chan func()), done: make(chan struct{})}
	for _, e := range ents {
		if tid, _ := strconv.Atoi(e.Name()); tid != pid && tid > 0 {
			h.tid = tid
		}
	}
	if h.tid == 0 {
		return nil, fmt.Errorf("exithold: process %d has one thread only", pid)
	}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		defer close(h.done)
		for f := range h.req {
			f()
		}
	}()
	var errno syscall.Errno
	h.do(func() {
		_, _, errno = syscall.Syscall6(syscall.SYS_PTRACE, ptraceSeize, uintptr(h.tid), 0, ptraceOTraceExit, 0, 0)
	})
	if errno != 0 {
		close(h.req)
		<-h.done
		return nil, fmt.Errorf("exithold: trace thread %d of %d: %w", h.tid, pid, errno)
	}
	return h, nil
}

func (h *Hold) do(f func()) {
	ran := make(chan struct{})
	h.req <- func() { f(); close(ran) }
	<-ran
}

// Release kills the process if it was not, waits for the held thread to
// stop at its exit and lets it go. Once; later calls do nothing.
func (h *Hold) Release() {
	if h == nil || h.req == nil {
		return
	}
	syscall.Kill(h.pid, syscall.SIGKILL)
	h.do(func() {
		var ws syscall.WaitStatus
		syscall.Wait4(h.tid, &ws, syscall.WALL, nil)
		syscall.PtraceDetach(h.tid)
	})
	close(h.req)
	<-h.done
	h.req = nil
}
