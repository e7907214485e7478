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
// another process — gridtui drain RUN NODE — can ask it to drain a node.
// One request per connection: a line "drain NODE [WHY]", answered by "ok"
// or "error: …".

// drainTimeout bounds a drain request, from the connection to the answer.
const drainTimeout = 30 * time.Second

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
	if verb != "drain" || node == "" {
		fmt.Fprintf(c, "error: want \"drain NODE [WHY]\"\n")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := ctl.Drain(ctx, node, strings.TrimSpace(why)); err != nil {
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
// log. A run that is unknown or not running fails with ErrResume's
// siblings: ErrDrain wraps every refusal.
func RequestDrain(dataDir, id, node, why string) error {
	m, err := LoadManifest(dataDir, id)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrDrain, node, err)
	}
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return err
	}
	if !m.Running() {
		return fmt.Errorf("%w %s: run %s is not running (%s; gridtui run --resume %s continues it)", ErrDrain, node, id, m.State(), id)
	}
	c, err := net.DialTimeout("unix", socketPath(dir, id), 5*time.Second)
	if err != nil {
		return fmt.Errorf("%w %s: run %s: %w", ErrDrain, node, id, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(drainTimeout + 5*time.Second))
	if _, err := fmt.Fprintf(c, "drain %s %s\n", node, strings.ReplaceAll(why, "\n", " ")); err != nil {
		return fmt.Errorf("%w %s: run %s: %w", ErrDrain, node, id, err)
	}
	ans, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("%w %s: run %s did not answer: %w", ErrDrain, node, id, err)
	}
	if ans = strings.TrimSpace(ans); ans != "ok" {
		return fmt.Errorf("run %s: %s", id, strings.TrimPrefix(ans, "error: "))
	}
	return nil
}
