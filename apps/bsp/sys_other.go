//go:build !linux

package bsp

import "syscall"

// childAttr: elsewhere the program's socket closing ends it.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
