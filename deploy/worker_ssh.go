package deploy

import (
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// workerCommand starts the uploaded binary in the work directory. exec keeps
// the shell's pid, so the pid file names the worker itself; it also names
// the host, for work directories shared by several hosts (NFS homes). What
// a killed or hung worker of the node left is cleaned first (staleScript).
func workerCommand(wd, node, sub string) string {
	return "cd " + shQuote(wd) + " && { " + staleScript(node) + "} && echo \"$$ $(uname -n)\" > " + shQuote(pidFile(node)) +
		" && exec ./" + binaryName + " " + sub
}

// startRemote starts a worker over SSH on h's pooled connection. The session
// holds one of the connection's slots until the worker exits; release is
// called then (or at once if the start fails).
func startRemote(ctx context.Context, pool *sshclient.Pool, h inventory.Host, b Boot, opt Options, ev *emitter, release func()) (w *Worker, err error) {
	defer func() {
		if err != nil {
			release()
		}
	}()
	c, err := sshclient.Connect(ctx, pool, h)
	if err != nil {
		return nil, err
	}
	free, err := c.Acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	s, stdin, stdout, err := openWorkerSession(ctx, c)
	if err != nil {
		free()
		return nil, err
	}
	w = &Worker{Host: h, done: make(chan struct{}), stdin: stdin, stderr: newTail(), stdout: newTail(),
		timeout: opt.stopTimeout(), ev: ev}
	w.kill = func() {
		s.Signal(ssh.SIGKILL)
		s.Close()
	}
	s.Stderr = w.stderr
	w.killHung = func() { killRemote(c, h, b.Node, w.Hello.PID) }
	cmd := workerCommand(remoteWorkdir(h), b.Node, b.subcommand())
	if err := s.Start(cmd); err != nil {
		s.Close()
		free()
		return nil, fmt.Errorf("deploy: start worker on %s: %w", h.Name, err)
	}
	w.Hello, err = handshake(ctx, stdin, stdout, b, opt.helloTimeout(), w.kill)
	if err != nil {
		w.kill()
		s.Wait()
		free()
		if tail := w.stderr.String(); tail != "" {
			return nil, fmt.Errorf("deploy: worker on %s (%s): %w: %s", h.Name, path.Join(remoteWorkdir(h), binaryName), err, tail)
		}
		return nil, fmt.Errorf("deploy: worker on %s: %w", h.Name, err)
	}
	pid := w.Hello.PID
	w.oomLine = func() string { return remoteOOMKill(c, pid) }
	go func() {
		io.Copy(ownerEvents(w, ev), stdout)
		err := s.Wait()
		s.Close()
		free()
		w.exited(b.Node, err)
		release()
	}()
	return w, nil
}

// killRemote SIGKILLs the worker of node with pid on h through a command of
// its own (closing the worker's session and a signal request do not end a
// stopped process under every sshd), if the node's pid file still names
// that process on this host. Errors are ignored: a host that cannot be
// reached has nothing to kill that can be reached.
func killRemote(c *sshclient.Conn, h inventory.Host, node string, pid int) {
	if pid <= 0 {
		return
	}
	p := strconv.Itoa(pid)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Run(ctx, "cd "+shQuote(remoteWorkdir(h))+" && read p h < "+shQuote(pidFile(node))+
		" && [ \"$p\" = "+p+" ] && [ \"$h\" = \"$(uname -n)\" ] && kill -KILL "+p+" && rm -f "+shQuote(pidFile(node)))
}

func openWorkerSession(ctx context.Context, c *sshclient.Conn) (*ssh.Session, io.WriteCloser, io.Reader, error) {
	s, err := c.NewSession(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		s.Close()
		return nil, nil, nil, fmt.Errorf("deploy: session on %s: %w", c, err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		return nil, nil, nil, fmt.Errorf("deploy: session on %s: %w", c, err)
	}
	return s, stdin, stdout, nil
}
