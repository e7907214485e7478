package sshclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// Acquire takes n of the connection's session slots until release. A task
// that needs several sessions at once (an upload: SFTP plus commands) takes
// them in one call, so tasks never hold some slots while waiting for more.
func (c *Conn) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if err := c.slots.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("deploy: session on %s: %w", c.ep, err)
	}
	return func() { c.slots.Release(n) }, nil
}

// Run executes cmd on the host in a session slot of its own; see Exec.
func (c *Conn) Run(ctx context.Context, cmd string) ([]byte, error) {
	release, err := c.Acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	defer release()
	return c.Exec(ctx, cmd)
}

// NewSession opens a session, retrying while the server refuses it as
// administratively prohibited: sshd frees a session only once both sides
// have closed it, so right after we release a slot the server may briefly
// still count it against MaxSessions.
func (c *Conn) NewSession(ctx context.Context) (*ssh.Session, error) {
	for attempt := 1; ; attempt++ {
		s, err := c.client.NewSession()
		var oe *ssh.OpenChannelError
		if err == nil || !errors.As(err, &oe) || oe.Reason != ssh.Prohibited || attempt == 10 {
			if err != nil {
				return nil, fmt.Errorf("deploy: open session on %s: %w", c.ep, err)
			}
			return s, nil
		}
		select {
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("deploy: open session on %s: %w", c.ep, ctx.Err())
		}
	}
}

// Exec executes cmd on the host, in a slot the caller holds, and returns its
// stdout; a non-zero exit yields an error carrying the start of stderr. ctx
// ends the session.
func (c *Conn) Exec(ctx context.Context, cmd string) ([]byte, error) {
	s, err := c.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout = &out
	s.Stderr = &limitedBuffer{buf: &errb, max: 4096}
	done := make(chan error, 1)
	go func() { done <- s.Run(cmd) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Signal(ssh.SIGKILL)
		s.Close()
		return nil, fmt.Errorf("deploy: run %q on %s: %w", firstWord(cmd), c.ep, ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg != "" {
			return out.Bytes(), fmt.Errorf("deploy: run %q on %s: %w: %s", firstWord(cmd), c.ep, err, msg)
		}
		return out.Bytes(), fmt.Errorf("deploy: run %q on %s: %w", firstWord(cmd), c.ep, err)
	}
	return out.Bytes(), nil
}

func firstWord(cmd string) string {
	if i := strings.IndexByte(cmd, ' '); i > 0 {
		return cmd[:i]
	}
	return cmd
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

// Write keeps what fits and reports everything written.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
