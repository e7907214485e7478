package deploy

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/sshclient"
)

// ErrKilled is wrapped when a worker that was not being stopped ended by
// SIGKILL: the kernel's out-of-memory killer, or someone's kill -9. The
// error says which when the kernel's log can tell (a local worker).
var ErrKilled = errors.New("killed (SIGKILL)")

// ErrOutOfMemory is wrapped, with ErrKilled, when the kernel's log shows its
// out-of-memory killer ended the worker.
var ErrOutOfMemory = errors.New("out of memory")

// errKillSent is the end of a local worker to which SIGKILL was seen sent
// before its process could be reaped (watchKill); it reads as the wait
// status of a process killed by SIGKILL does.
var errKillSent = errors.New("signal: killed")

// killedHard reports whether err is the exit of a process ended by
// SIGKILL: a local process's wait status or its SIGKILL seen sent, an SSH
// session's exit signal, or the 128+9 status a remote shell gives for its
// killed child.
func killedHard(err error) bool {
	if errors.Is(err, errKillSent) {
		return true
	}
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		if ws, ok := xe.Sys().(syscall.WaitStatus); ok {
			return ws.Signaled() && ws.Signal() == syscall.SIGKILL
		}
	}
	var se *ssh.ExitError
	if errors.As(err, &se) {
		return se.Signal() == string(ssh.SIGKILL) || se.ExitStatus() == 128+int(syscall.SIGKILL)
	}
	return false
}

// kernelLogTimeout bounds the read of the kernel's log.
const kernelLogTimeout = 2 * time.Second

// oomKillLine returns the kernel log line in which the out-of-memory killer
// ended pid ("Out of memory: Killed process 1234 (gridtui) …", or a memory
// control group's "Memory cgroup out of memory: Killed process 1234 …"),
// the last one if several, "" if none.
func oomKillLine(log string, pid int) string {
	re := regexp.MustCompile(`(?i)out of memory.*killed process ` + strconv.Itoa(pid) + `\b.*`)
	found := ""
	for _, l := range strings.Split(log, "\n") {
		if m := re.FindString(l); m != "" {
			found = strings.TrimSpace(m)
		}
	}
	return found
}

// oomKillCount returns how many processes this host's out-of-memory killer
// has ended since boot (/proc/vmstat's oom_kill, which counts those of
// memory control groups too), and whether the kernel says.
func oomKillCount() (uint64, bool) {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "oom_kill "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// localOOMKiller returns the oomLine of a local worker whose process is pid,
// started now: when the host's out-of-memory killer has ended nothing since,
// a SIGKILL was someone else's and the kernel's log is not read (dmesg, a
// process to start on a host that may be crowded, would delay the report of
// the worker's end by up to kernelLogTimeout).
func localOOMKiller(pid int) func() string {
	base, counted := oomKillCount()
	return func() string {
		if n, ok := oomKillCount(); counted && ok && n == base {
			return ""
		}
		return localOOMKill(pid)
	}
}

// localOOMKill looks for pid in this host's kernel log (dmesg; it needs
// the right to read it, else nothing is found).
func localOOMKill(pid int) string {
	if pid <= 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), kernelLogTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "dmesg").Output()
	if err != nil {
		return ""
	}
	return oomKillLine(string(out), pid)
}

// remoteOOMKill looks for pid in the kernel log of the host of c (its
// dmesg, as the SSH user may read it).
func remoteOOMKill(c *sshclient.Conn, pid int) string {
	if pid <= 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), kernelLogTimeout)
	defer cancel()
	out, err := c.Run(ctx, "dmesg 2>/dev/null | tail -n 4000")
	if err != nil && len(out) == 0 {
		return ""
	}
	return oomKillLine(string(out), pid)
}
