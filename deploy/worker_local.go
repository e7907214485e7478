package deploy

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
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
func startLocal(ctx context.Context, h Host, b Boot, opt Options, ev *emitter) (*Worker, error) {
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w := &Worker{Host: h, done: make(chan struct{}), gone: make(chan struct{}), stderr: newTail(), stdout: newTail(), timeout: opt.stopTimeout(), ev: ev}
	cmd.Stderr = w.stderr
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
	w.kill = func() { syscall.Kill(-pgid, syscall.SIGKILL) }
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
		io.Copy(w.stdout, stdout) // returns at EOF, once the group is gone
		close(stopWatch)
		<-watchEnded
		err := cmd.Wait()
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
