//go:build unix

package engine

import "syscall"

// killPid sends SIGKILL to pid.
func killPid(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
