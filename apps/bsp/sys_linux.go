package bsp

import "syscall"

// childAttr makes the program die with its worker.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
