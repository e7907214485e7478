//go:build unix

package deploy

import "syscall"

// sigCont resumes a stopped process (a worker its owner policy paused).
const sigCont = syscall.SIGCONT

// groupAttr makes a local command lead a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup signals pid's process group, or pid alone when it leads none.
func signalGroup(pid int, sig syscall.Signal) {
	if syscall.Kill(-pid, sig) != nil {
		syscall.Kill(pid, sig)
	}
}

// processExists reports whether pid exists (a zombie included).
func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }

// signalPid is kill(2): a negative pid names a process group.
func signalPid(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
