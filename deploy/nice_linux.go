package deploy

import "syscall"

// lowerPriority makes the worker's process group (every thread of it: the
// kernel applies a group's priority to each) localWorkerNice nicer than
// this process, best effort.
func lowerPriority(pgid int) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	nice := 20 - prio // the system call's value on Linux is 20 − nice
	syscall.Setpriority(syscall.PRIO_PGRP, pgid, min(nice+localWorkerNice, 19))
}
