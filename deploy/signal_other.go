//go:build !unix

package deploy

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// sigCont: there is no stopped state to resume from here.
const sigCont = syscall.Signal(0)

// groupAttr: process groups are a Unix notion; the command runs as is.
func groupAttr() *syscall.SysProcAttr { return nil }

// signalGroup ends pid (any signal but sigCont kills it: there are no
// others here). Workers run on Linux; only a console runs here.
func signalGroup(pid int, sig syscall.Signal) {
	if sig == sigCont {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
		p.Release()
	}
}

// processExists reports whether pid can be found.
func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// signalPid kills the process |pid| (there are neither groups nor other
// signals here); a worker's goroutine dump (SIGQUIT) is refused.
func signalPid(pid int, sig syscall.Signal) error {
	if sig != syscall.SIGKILL && sig != syscall.SIGTERM {
		return fmt.Errorf("deploy: signal %v to process %d: %w", sig, pid, errors.ErrUnsupported)
	}
	p, err := os.FindProcess(max(pid, -pid))
	if err != nil {
		return fmt.Errorf("deploy: signal process %d: %w", pid, err)
	}
	defer p.Release()
	return p.Kill()
}
