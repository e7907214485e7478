package deploy

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/sshclient"
)

// runner runs shell commands where a batch scheduler's commands are: on a
// site's frontend over SSH, or here when gridtui runs inside an allocation.
type runner interface {
	// start runs cmd with sh; the process's stderr goes to stderr.
	start(ctx context.Context, cmd string, stderr io.Writer) (*process, error)
	// output runs cmd and returns its stdout.
	output(ctx context.Context, cmd string) ([]byte, error)
	// String names where commands run, for errors.
	String() string
}

// process is a started command: its stdin and stdout, how to wait for it
// and how to end it.
type process struct {
	stdin  io.WriteCloser
	stdout io.Reader
	wait   func() error
	kill   func()
}

// sshRunner runs commands on a frontend over its pooled connection; every
// command that lives long (an allocation, a worker) holds a session slot.
type sshRunner struct {
	c *sshclient.Conn
}

func (r sshRunner) String() string { return r.c.String() }

func (r sshRunner) output(ctx context.Context, cmd string) ([]byte, error) { return r.c.Run(ctx, cmd) }

func (r sshRunner) start(ctx context.Context, cmd string, stderr io.Writer) (*process, error) {
	free, err := r.c.Acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	s, stdin, stdout, err := openWorkerSession(ctx, r.c)
	if err != nil {
		free()
		return nil, err
	}
	s.Stderr = stderr
	if err := s.Start(cmd); err != nil {
		s.Close()
		free()
		return nil, fmt.Errorf("deploy: run %q on %s: %w", firstWord(cmd), r.c, err)
	}
	return &process{stdin: stdin, stdout: stdout,
		wait: func() error { err := s.Wait(); s.Close(); free(); return err },
		kill: func() { s.Signal(ssh.SIGKILL); s.Close() }}, nil
}

// localRunner runs commands here, each in its own process group.
type localRunner struct{}

func (localRunner) String() string { return "this host" }

func (localRunner) output(ctx context.Context, cmd string) ([]byte, error) {
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Dir = homeDir()
	out, err := c.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			return out, fmt.Errorf("deploy: run %q here: %w: %s", firstWord(cmd), err, ee.Stderr)
		}
		return out, fmt.Errorf("deploy: run %q here: %w", firstWord(cmd), err)
	}
	return out, nil
}

func (localRunner) start(_ context.Context, cmd string, stderr io.Writer) (*process, error) {
	c := exec.Command("sh", "-c", cmd)
	c.Dir = homeDir() // where an SSH session would start: work directories are relative to it
	c.SysProcAttr = groupAttr()
	c.Stderr = stderr
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("deploy: run %q here: %w", firstWord(cmd), err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("deploy: run %q here: %w", firstWord(cmd), err)
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("deploy: run %q here: %w", firstWord(cmd), err)
	}
	pgid := c.Process.Pid
	return &process{stdin: stdin, stdout: stdout,
		wait: func() error { io.Copy(io.Discard, stdout); return c.Wait() },
		kill: func() { signalGroup(pgid, syscall.SIGTERM) }}, nil
}

// homeDir is $HOME, else the current directory.
func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}
