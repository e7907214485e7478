package deploy

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// localWorkerNice is how much nicer than the console its local workers
// run. They share the console's processors: hundreds of them computing must
// not starve the console, which is their submitter and watches their
// coordinators (the coordinators of a 1024-worker local run gave up on a
// console silent for 12 s).
const localWorkerNice = 5

// localMemberNice is how much nicer than the console a local worker runs
// once told it coordinates nothing (Worker.Yield): on a host crowded with
// hundreds of one-core workers, a coordinator's fair share of the
// processors is too small to take its members' messages in time, and the
// plain members, which need far less than their share to keep up with
// theirs, give way to it.
const localMemberNice = 14

// startLocal starts `gridtui worker` as a local process in its own process
// group (so Stop kills whatever it spawned), with the boot on stdin.
func startLocal(ctx context.Context, h inventory.Host, b Boot, opt Options, ev *emitter) (*Worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("deploy: locate running binary: %w", err)
	}
	wd := localWorkdir(h)
	if err := os.MkdirAll(wd, 0o700); err != nil {
		return nil, fmt.Errorf("deploy: work directory of %s: %w", h.Name, err)
	}
	cleanStaleLocal(wd, b.Node)
	cmd := exec.Command(exe, b.subcommand())
	cmd.Dir = wd
	cmd.SysProcAttr = groupAttr()
	w := &Worker{Host: h, done: make(chan struct{}), gone: make(chan struct{}), stderr: newTail(), stdout: newTail(), timeout: opt.stopTimeout(), ev: ev}
	sink := &stderrSink{tail: w.stderr}
	cmd.Stderr = sink
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("deploy: worker %s: %w", h.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("deploy: worker %s: %w", h.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("deploy: start worker %s (%s): %w", h.Name, exe, err)
	}
	w.stdin = stdin
	pgid := cmd.Process.Pid
	lowerPriority(pgid)
	w.kill = func() { signalPid(-pgid, syscall.SIGKILL) }
	w.yield = func(yield bool) {
		if yield {
			setGroupNice(pgid, localMemberNice)
		} else {
			setGroupNice(pgid, localWorkerNice)
		}
	}
	pf := filepath.Join(wd, pidFile(b.Node))
	os.WriteFile(pf, []byte(strconv.Itoa(pgid)+"\n"), 0o600)
	// The kill watch, stopped (and waited for) before the process is
	// reaped: its pid is not reused while the console has not waited for it.
	stopWatch, watchEnded := make(chan struct{}), make(chan struct{})
	reap := func() error {
		io.Copy(ownerEvents(w, ev), stdout) // returns at EOF, once the group is gone
		close(stopWatch)
		<-watchEnded
		err := cmd.Wait() // its stderr copied
		sink.close()
		close(w.gone)
		return err
	}
	w.Hello, err = handshake(ctx, stdin, stdout, b, opt.helloTimeout(), w.kill)
	if err != nil {
		close(watchEnded)
		w.kill()
		reap()
		os.Remove(pf)
		if tail := w.stderr.String(); tail != "" {
			return nil, fmt.Errorf("deploy: local worker %s: %w: %s", h.Name, err, tail)
		}
		return nil, fmt.Errorf("deploy: local worker %s: %w", h.Name, err)
	}
	pid := w.Hello.PID
	w.oomLine = localOOMKiller(pid)
	logPath := ""
	if b.LogFile != "" {
		logPath = b.LogFile
		if !filepath.IsAbs(logPath) {
			logPath = filepath.Join(wd, logPath)
		}
	}
	w.dump = func() bool {
		if st, ok := processState(pgid); !ok || st == 'T' || st == 't' || st == 'Z' || st == 'X' {
			return false
		}
		sink.toLog(logPath, threadStates(pgid))
		return signalPid(pgid, syscall.SIGQUIT) == nil
	}
	go func() {
		defer close(watchEnded)
		// A process sent SIGKILL is ended as far as the run goes; on a
		// crowded host it may be gone, and reaped, seconds later.
		watchKill(pgid, stopWatch, func() { w.exited(b.Node, errKillSent) })
	}()
	go func() {
		err := reap()
		os.Remove(pf)
		w.exited(b.Node, err)
	}()
	return w, nil
}

// stderrSink takes a local worker's stderr: the console keeps its tail
// (a failed worker's error quotes it) and, once the worker is asked for its
// goroutine stacks (Worker.DumpStacks), appends it to the worker's log file
// too, where the worker's own log lines go without the console. A failing
// write to the file is dropped: the worker must never block on its stderr.
type stderrSink struct {
	tail *tailBuffer
	mu   sync.Mutex
	file *os.File
}

func (s *stderrSink) Write(p []byte) (int, error) {
	s.tail.Write(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Write(p)
	}
	return len(p), nil
}

// toLog appends what follows to the log file at path ("" or unopenable:
// the tail only), after a line saying why, with the states of the worker's
// threads as the kernel saw them then (threadStates).
func (s *stderrSink) toLog(path, threads string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "time=%s level=WARN msg=\"console: the worker is named silent; SIGQUIT sent for its goroutine stacks, which follow\" threads=%q\n",
		time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), threads)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		s.file = f
	} else {
		f.Close()
	}
}

func (s *stderrSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// threadStates counts the threads of process pid by the state the kernel
// gives them (R running, S sleeping, D in uninterruptible wait, T stopped…),
// e.g. "R 1, S 11": a process with threads in D waits on the kernel, one
// all asleep waits on itself or its peers.
func threadStates(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	count := map[byte]int{}
	for _, e := range ents {
		if st, ok := statState(filepath.Join(dir, e.Name(), "stat")); ok {
			count[st]++
		}
	}
	states := slices.Sorted(maps.Keys(count))
	parts := make([]string, len(states))
	for i, st := range states {
		parts[i] = fmt.Sprintf("%c %d", st, count[st])
	}
	return strings.Join(parts, ", ")
}
