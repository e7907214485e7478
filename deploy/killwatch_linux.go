package deploy

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// killWatchInterval is how often the console looks whether a local worker
// was sent SIGKILL: one read of the kernel's status of the process per
// worker per interval, a small share of the 3 s in which a killed process
// is to be reported.
const killWatchInterval = 400 * time.Millisecond

// killDelivered reports whether SIGKILL has been sent to process pid as a
// whole (kill(2) of the process or its group, the out-of-memory killer):
// the kernel keeps it in the process's shared pending set (ShdPnd of
// /proc/<pid>/status) from the moment it is sent until the process is
// reaped, while every thread of the process is made to exit. Such a process
// is irrevocably ending, even while some of its threads wait to be
// scheduled for their exit on a crowded host (its sockets and pipes close,
// and its exit can be waited for, only once the last of them has run). A
// process that exits on its own never has SIGKILL there.
func killDelivered(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	return shdPndHasKill(b)
}

// shdPndHasKill reports whether the ShdPnd line of a /proc/<pid>/status
// text holds SIGKILL (signal 9: bit 8 of the hexadecimal mask).
func shdPndHasKill(status []byte) bool {
	_, rest, ok := bytes.Cut(status, []byte("\nShdPnd:"))
	if !ok {
		return false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 64)
	return err == nil && mask&(1<<(9-1)) != 0
}

// watchKill calls killed once if SIGKILL is seen delivered to process pid
// (a local worker, the console's child: its pid is not reused before the
// console reaps it) before stop is closed, looking every interval. It
// returns when either happens.
func watchKill(pid int, interval time.Duration, stop <-chan struct{}, killed func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if killDelivered(pid) {
				killed()
				return
			}
		}
	}
}
