//go:build unix

package sshclient

import (
	"os"
	"syscall"
)

// groupAttr puts the proxy command in a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the proxy command's process group.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
