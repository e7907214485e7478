package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// staleWait bounds the wait for the workers a dead console left behind to
// exit by themselves (they do when their stdin closes: seconds).
const staleWait = 5 * time.Second

// cmdline returns the arguments of process pid (nil: none, or gone).
func cmdline(pid int) [][]byte {
	if pid <= 0 {
		return nil
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
}

// processIs reports whether process pid is alive and runs the program
// named exec (argv[0]'s base name): a PID reused by another program is not
// the recorded one.
func processIs(pid int, exec string) bool {
	args := cmdline(pid)
	return len(args) > 0 && filepath.Base(string(args[0])) == exec
}

// isWorker reports whether process pid is alive and a gridtui worker (its
// arguments end in "worker").
func isWorker(pid int) bool {
	args := cmdline(pid)
	return len(args) > 1 && string(args[len(args)-1]) == "worker"
}

// stopStale stops the local workers of m that outlived its console: each
// gets staleWait to exit (a worker does when its stdin closes), then
// SIGKILL. It returns what it did, one line per worker it had to kill;
// workers on other hosts end with their SSH session.
func stopStale(m *Manifest) []string {
	deadline := time.Now().Add(staleWait)
	var out []string
	for _, w := range m.Workers {
		for isWorker(w.PID) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !isWorker(w.PID) {
			continue
		}
		if err := killPid(w.PID); err == nil {
			out = append(out, fmt.Sprintf("stopped worker %d of %s left running by the lost console", w.PID, w.Host))
		}
	}
	return out
}
