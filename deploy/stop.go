package deploy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// ErrStillRunning is wrapped when a worker outlives SIGKILL (a process in
// uninterruptible sleep, or one another user owns).
var ErrStillRunning = errors.New("deploy: worker still running")

// shAlive is a shell function: alive PID succeeds while the process exists
// and is not a zombie (a killed worker whose parent has not reaped it yet is
// gone for our purpose). /proc where there is one, kill -0 elsewhere.
const shAlive = `alive() { if [ -r /proc/$1/stat ]; then s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); [ -n "$s" ] && [ "$s" != Z ]; else kill -0 "$1" 2>/dev/null; fi; }; `

// shIsGridtui is a shell function: isgt PID succeeds when the process runs
// gridtui, so that a recycled pid is left alone.
const shIsGridtui = `isgt() { tr '\0' ' ' </proc/$1/cmdline 2>/dev/null | grep -q gridtui || ps -p "$1" -o args= 2>/dev/null | grep -q gridtui; }; `

// stopScript stops the workers whose pid files in wd name this host: SIGTERM
// (and SIGCONT, so a stopped worker can act on it), then, after grace,
// SIGKILL for those still there; it checks they are gone and removes their
// pid files. It prints "stopped killed running" counts. With clean it also
// removes wd.
func stopScript(wd string, clean bool, grace time.Duration) string {
	q := shQuote(wd)
	tenths := max(int(grace/(100*time.Millisecond)), 1)
	s := `cd ` + q + ` 2>/dev/null || { echo 0 0 0; exit 0; }; ` + shAlive + shIsGridtui +
		`me=$(uname -n); ps=''; ` +
		`for f in worker-*.pid; do [ -f "$f" ] || continue; read p h < "$f"; [ "$h" = "$me" ] || continue; ` +
		`case "$p" in ''|*[!0-9]*) rm -f "$f"; continue;; esac; ` +
		`if alive "$p" && isgt "$p"; then kill -TERM "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; ps="$ps $p"; fi; rm -f "$f"; done; ` +
		`i=0; while [ $i -lt ` + strconv.Itoa(tenths) + ` ]; do left=''; for p in $ps; do alive "$p" && left="$left $p"; done; [ -z "$left" ] && break; sleep 0.1; i=$((i+1)); done; ` +
		`k=0; for p in $ps; do if alive "$p"; then kill -KILL "$p" 2>/dev/null; k=$((k+1)); fi; done; ` +
		`[ $k -gt 0 ] && sleep 0.2; n=0; a=0; for p in $ps; do if alive "$p"; then a=$((a+1)); else n=$((n+1)); fi; done; ` +
		`echo "$n $k $a"`
	if clean {
		s += `; cd && rm -rf ` + q
	}
	return s
}

// stopCounts reads stopScript's output.
func stopCounts(out string) (stopped, killed, running int, err error) {
	if _, err := fmt.Sscan(out, &stopped, &killed, &running); err != nil {
		return 0, 0, 0, fmt.Errorf("deploy: stop: unexpected output %q", out)
	}
	return stopped, killed, running, nil
}

// stopOutcome is the detail (and error, when a worker survived) of a stop.
func stopOutcome(host string, stopped, killed, running int, grace time.Duration, clean bool) (string, error) {
	d := strconv.Itoa(stopped) + " worker(s) stopped"
	if killed > 0 {
		d += fmt.Sprintf(" (%d killed: still there %s after SIGTERM)", killed, grace)
	}
	if clean {
		d += ", work directory removed"
	}
	if running > 0 {
		return d, fmt.Errorf("%w: %s: %d worker(s) still running after SIGKILL", ErrStillRunning, host, running)
	}
	return d, nil
}

// stopLocal does what stopScript does, for local processes (each worker
// leads its own process group, which is signalled as a whole).
func stopLocal(h inventory.Host, clean bool, grace time.Duration) (string, error) {
	wd := localWorkdir(h)
	files, _ := filepath.Glob(filepath.Join(wd, "worker-*.pid"))
	var pids []int
	for _, f := range files {
		buf, err := os.ReadFile(f)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(buf)))
		if err == nil && perr == nil && pid > 0 && processAlive(pid) && isGridtui(pid) {
			signalGroup(pid, syscall.SIGTERM)
			signalGroup(pid, sigCont)
			pids = append(pids, pid)
		}
		os.Remove(f)
	}
	stopped, killed, running := awaitGone(pids, grace)
	if clean {
		if err := os.RemoveAll(wd); err != nil {
			return "", fmt.Errorf("deploy: remove %s: %w", wd, err)
		}
		os.Remove(filepath.Dir(wd)) // the shared "local" directory, once empty
	}
	return stopOutcome(h.Name, stopped, killed, running, grace, clean)
}

// awaitGone waits up to grace for pids to exit, SIGKILLs the groups of
// those left, and counts the processes gone, killed and still running.
func awaitGone(pids []int, grace time.Duration) (stopped, killed, running int) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && anyAlive(pids) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range pids {
		if processAlive(p) {
			signalGroup(p, syscall.SIGKILL)
			killed++
		}
	}
	deadline = time.Now().Add(time.Second)
	for killed > 0 && time.Now().Before(deadline) && anyAlive(pids) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range pids {
		if processAlive(p) {
			running++
		} else {
			stopped++
		}
	}
	return stopped, killed, running
}

func anyAlive(pids []int) bool {
	for _, p := range pids {
		if processAlive(p) {
			return true
		}
	}
	return false
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	if state, ok := processState(pid); ok {
		return state != 'Z'
	}
	return processExists(pid)
}

// processState returns the state letter of /proc/PID/stat (R, S, T, Z…),
// false when there is no such file.
func processState(pid int) (byte, bool) {
	return statState("/proc/" + strconv.Itoa(pid) + "/stat")
}

// statState reads the state letter of a /proc stat file (a process's or a
// thread's).
func statState(path string) (byte, bool) {
	stat, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return 0, false
	}
	return stat[i+2], true
}

func (o Options) stopGrace() time.Duration {
	if o.StopGrace > 0 {
		return o.StopGrace
	}
	return DefaultStopGrace
}

// socketPrefix is the name prefix of a node's RMNP socket directories in
// its work directory, as the worker makes them: "rmnp-" + node + "-" and
// digits (os.MkdirTemp), the node's slashes and control characters as "_".
func socketPrefix(node string) string {
	return "rmnp-" + strings.Map(func(r rune) rune {
		if r == '/' || r < ' ' {
			return '_'
		}
		return r
	}, node) + "-"
}

// staleScript runs before a node's worker starts in its work directory: a
// worker of the same node recorded there that is stopped (SIGSTOP, hung:
// it would never exit on its own) and no longer owned by a live session
// (its parent is neither sshd nor gridtui: its console is gone) is killed; when no worker of the node is
// left, its pid file's leftovers, the RMNP socket directories of killed
// workers, are removed.
func staleScript(node string) string {
	pf, pre := shQuote(pidFile(node)), shQuote(socketPrefix(node))
	return shAlive + shIsGridtui +
		`live=0; if [ -f ` + pf + ` ]; then read p h < ` + pf + `; ` +
		`case "$p" in ''|*[!0-9]*) ;; *) if [ "$h" = "$(uname -n)" ] && alive "$p" && isgt "$p"; then ` +
		`s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -d' ' -f1,2); pp=${s#* }; s=${s%% *}; ` +
		`owned=0; tr '\0' ' ' </proc/$pp/cmdline 2>/dev/null | grep -q -e sshd -e gridtui && owned=1; ` +
		`if [ $owned = 0 ] && { [ "$s" = T ] || [ "$s" = t ]; }; then kill -KILL "$p"; sleep 0.1; fi; alive "$p" && live=1; fi;; esac; fi; ` +
		`if [ $live = 0 ]; then for d in ` + pre + `*; do [ -d "$d" ] || continue; ` +
		`case "${d#` + pre + `}" in ''|*[!0-9]*) continue;; esac; rm -rf "$d"; done; fi; `
}

// cleanStaleLocal does what staleScript does, for a local node.
func cleanStaleLocal(wd, node string) {
	if buf, err := os.ReadFile(filepath.Join(wd, pidFile(node))); err == nil {
		pid, err := strconv.Atoi(strings.TrimSpace(string(buf)))
		if err == nil && pid > 0 && processAlive(pid) && isGridtui(pid) {
			if st, _ := processState(pid); (st == 'T' || st == 't') && !ownedByConsole(pid) {
				signalGroup(pid, syscall.SIGKILL)
				awaitGone([]int{pid}, time.Second)
			}
			if processAlive(pid) {
				return
			}
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(wd, socketPrefix(node)+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), socketPrefix(node))
		if rest != "" && strings.Trim(rest, "0123456789") == "" {
			os.RemoveAll(d)
		}
	}
}

// ownedByConsole reports whether pid's parent is a running gridtui (the
// console that started it): its worker is not stale, even when stopped.
func ownedByConsole(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(f) < 2 {
		return false
	}
	ppid, err := strconv.Atoi(f[1])
	return err == nil && ppid > 1 && processAlive(ppid) && isGridtui(ppid)
}
