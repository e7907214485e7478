package sshclient

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// watchdog calls expire once its time runs out; the time spent between a
// pause and the resume it returns does not count.
type watchdog struct {
	mu      sync.Mutex
	timer   *time.Timer
	left    time.Duration
	since   time.Time
	paused  int
	expired bool
	stopped bool
}

func startWatchdog(d time.Duration, expire func()) *watchdog {
	w := &watchdog{left: d, since: time.Now()}
	w.timer = time.AfterFunc(d, func() {
		w.mu.Lock()
		if w.stopped || w.paused > 0 {
			w.mu.Unlock()
			return
		}
		w.expired = true
		w.mu.Unlock()
		expire()
	})
	return w
}

// pause stops the clock until the returned resume is called.
func (w *watchdog) pause() func() {
	w.mu.Lock()
	if w.paused == 0 && !w.expired && !w.stopped {
		w.timer.Stop()
		w.left -= time.Since(w.since)
	}
	w.paused++
	w.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.paused--
			if w.paused == 0 && !w.expired && !w.stopped {
				w.since = time.Now()
				w.timer.Reset(max(w.left, time.Millisecond))
			}
		})
	}
}

// stop ends the watch and reports whether the time had run out.
func (w *watchdog) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
	return w.expired
}

// proxyConn is a ProxyCommand's standard input and output as a net.Conn.
// Closing it ends the command (its whole process group).
type proxyConn struct {
	cmd     *exec.Cmd
	line    string
	remote  string // the "host:port" the command reaches, for host key checks
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	stderr  *lastBytes
	closeMu sync.Once
}

// startProxyCommand runs line with sh -c, as ssh does.
func startProxyCommand(ctx context.Context, line, remote string) (*proxyConn, error) {
	cmd := exec.Command("sh", "-c", "exec "+line)
	cmd.SysProcAttr = groupAttr()
	pc := &proxyConn{cmd: cmd, line: line, remote: remote, stderr: &lastBytes{max: 4096}}
	cmd.Stderr = pc.stderr
	var err error
	if pc.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if pc.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("proxy command %q: %w", line, err)
	}
	return pc, nil
}

// explain adds what the proxy command wrote on stderr to err.
func (pc *proxyConn) explain(err error) error {
	pc.Close()
	if msg := strings.TrimSpace(pc.stderr.String()); msg != "" {
		return fmt.Errorf("%w (proxy command %q: %s)", err, pc.line, msg)
	}
	return fmt.Errorf("%w (proxy command %q)", err, pc.line)
}

func (pc *proxyConn) Read(b []byte) (int, error)  { return pc.stdout.Read(b) }
func (pc *proxyConn) Write(b []byte) (int, error) { return pc.stdin.Write(b) }

// Close closes the command's input, kills its process group and reaps it.
func (pc *proxyConn) Close() error {
	pc.closeMu.Do(func() {
		pc.stdin.Close()
		if pc.cmd.Process != nil {
			killGroup(pc.cmd.Process)
			pc.cmd.Wait()
		}
	})
	return nil
}

func (pc *proxyConn) LocalAddr() net.Addr              { return proxyAddr(pc.line) }
func (pc *proxyConn) RemoteAddr() net.Addr             { return proxyAddr(pc.remote) }
func (pc *proxyConn) SetDeadline(time.Time) error      { return nil }
func (pc *proxyConn) SetReadDeadline(time.Time) error  { return nil }
func (pc *proxyConn) SetWriteDeadline(time.Time) error { return nil }

// proxyAddr is an address at the end of a proxy command.
type proxyAddr string

func (a proxyAddr) Network() string { return "proxycommand" }
func (a proxyAddr) String() string  { return string(a) }

// lastBytes keeps the last max bytes written: the end of what a proxy
// command wrote on stderr, for the error that explains its failure.
type lastBytes struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// Write appends p, dropping the oldest bytes beyond max.
func (l *lastBytes) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > l.max {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-l.max:]...)
	}
	return len(p), nil
}

// String returns the bytes kept.
func (l *lastBytes) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}
