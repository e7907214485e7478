package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// A run recorded for a resume (resume.go) also listens on a Unix socket
// beside its manifest (resume/RUN.sock, mode 0600: this user's), so that
// another process — gridtui drain RUN NODE, gridtui join RUN HOST — can
// ask it to drain a node or take a host as a spare. One request per
// connection: a line "drain NODE [WHY]" or "join HOST", answered by "ok"
// or "error: …".

// drainTimeout bounds a drain request, from the connection to the answer.
const drainTimeout = 30 * time.Second

// joinTimeout bounds a join request: its worker's start (restartTimeout)
// and the wait for the event loop.
const joinTimeout = restartTimeout + 15*time.Second

func socketPath(dataDir, id string) string {
	return filepath.Join(dataDir, ResumeDir, id+".sock")
}

// serveControl listens on run id's socket and passes drain requests to
// ctl until the returned stop is called. A socket that cannot be made is
// said in the log, never fails the run.
func serveControl(dataDir, id string, ctl *Control, logf func(node, format string, args ...any)) (stop func()) {
	path := socketPath(dataDir, id)
	os.Remove(path) // a dead console's
	l, err := net.Listen("unix", path)
	if err != nil {
		logf("", "no control socket (gridtui drain will not reach this run): %v", err)
		return func() {}
	}
	os.Chmod(path, 0o600)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go answerControl(c, ctl)
		}
	}()
	return func() { l.Close(); os.Remove(path) }
}

// answerControl reads one request from c and answers it.
func answerControl(c net.Conn, ctl *Control) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(drainTimeout + time.Second))
	line, err := bufio.NewReader(&limitedConn{c, 4096}).ReadString('\n')
	if err != nil {
		return
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	node, why, _ := strings.Cut(strings.TrimSpace(rest), " ")
	if (verb != "drain" && verb != "join") || node == "" {
		fmt.Fprintf(c, "error: want \"drain NODE [WHY]\" or \"join HOST\"\n")
		return
	}
	timeout := drainTimeout
	if verb == "join" {
		timeout = joinTimeout
	}
	c.SetDeadline(time.Now().Add(timeout + time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if verb == "join" {
		// A client that goes (gridtui join interrupted) gives its join up:
		// it sends nothing after its line, so a read ends only then.
		go func() {
			var b [1]byte
			c.Read(b[:])
			cancel()
		}()
		err = ctl.Join(ctx, node)
	} else {
		err = ctl.Drain(ctx, node, strings.TrimSpace(why))
	}
	if err != nil {
		fmt.Fprintf(c, "error: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	fmt.Fprintf(c, "ok\n")
}

// limitedConn reads at most n bytes of a connection.
type limitedConn struct {
	c net.Conn
	n int
}

func (l *limitedConn) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("request too long")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	k, err := l.c.Read(p)
	l.n -= k
	return k, err
}

// RequestDrain asks the running run id (its console on this machine, data
// directory dataDir, "" the default) to drain node; why is said in its
// log. A run that is unknown fails with ErrResume, every other refusal
// with ErrDrain.
func RequestDrain(dataDir, id, node, why string) error {
	return request(dataDir, id, node, fmt.Sprintf("drain %s %s", node, strings.ReplaceAll(why, "\n", " ")), ErrDrain, drainTimeout)
}

// RequestJoin asks the running run id (as RequestDrain) to start a worker
// on host, a host of its inventory, and keep it as a spare of the job. A
// run that is unknown fails with ErrResume, every other refusal with
// ErrJoin. It returns once the worker is up.
func RequestJoin(dataDir, id, host string) error {
	if host == "" || strings.ContainsAny(host, " \t\n") {
		return fmt.Errorf("%w %q: not a host name", ErrJoin, host)
	}
	return request(dataDir, id, host, "join "+host, ErrJoin, joinTimeout)
}

// request sends line to the running run id's control socket; refusals
// wrap base (naming what, the node or host).
func request(dataDir, id, what, line string, base error, timeout time.Duration) error {
	m, err := LoadManifest(dataDir, id)
	if err != nil {
		return fmt.Errorf("%w %s: %w", base, what, err)
	}
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return err
	}
	if !m.Running() {
		return fmt.Errorf("%w %s: run %s is not running (%s; gridtui run --resume %s continues it)", base, what, id, m.State(), id)
	}
	c, err := net.DialTimeout("unix", socketPath(dir, id), 5*time.Second)
	if err != nil {
		return fmt.Errorf("%w %s: run %s: %w", base, what, id, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout + 5*time.Second))
	if _, err := fmt.Fprintf(c, "%s\n", line); err != nil {
		return fmt.Errorf("%w %s: run %s: %w", base, what, id, err)
	}
	ans, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("%w %s: run %s did not answer: %w", base, what, id, err)
	}
	if ans = strings.TrimSpace(ans); ans != "ok" {
		return fmt.Errorf("run %s: %w", id, remoteError{strings.TrimPrefix(ans, "error: "), base})
	}
	return nil
}

// remoteError is the run's refusal as its socket said it, matching base.
type remoteError struct {
	text string
	base error
}

func (e remoteError) Error() string { return e.text }
func (e remoteError) Unwrap() error { return e.base }
