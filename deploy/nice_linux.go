package deploy

import "syscall"

// lowerPriority makes the worker's process group (every thread of it: the
// kernel applies a group's priority to each) localWorkerNice nicer than
// this process, best effort.
func lowerPriority(pgid int) { setGroupNice(pgid, localWorkerNice) }

// setGroupNice makes the process group pgid (every thread of it) by nicer
// than this process, at most 19, best effort: a group already nicer stays
// so unless this process may raise priorities.
func setGroupNice(pgid, by int) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	nice := 20 - prio // the system call's value on Linux is 20 − nice
	syscall.Setpriority(syscall.PRIO_PGRP, pgid, min(nice+by, 19))
}
