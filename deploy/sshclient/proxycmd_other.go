//go:build !unix

package sshclient

import (
	"os"
	"syscall"
)

// groupAttr: process groups are a Unix notion; the command runs as is.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the proxy command itself (its own children may outlive it).
func killGroup(p *os.Process) { p.Kill() }
