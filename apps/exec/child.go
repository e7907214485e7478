package exec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fdEnv names the environment variable that tells gridhpc.c which file
// descriptor is its end of the socket pair.
const fdEnv = "GRIDHPC_FD"

// spinEnv tells gridhpc.c how many nanoseconds to poll for the worker's
// answer before it sleeps in read.
const spinEnv = "GRIDHPC_SPIN_NS"

// program is a running user program and the worker's end of its socket.
type program struct {
	name string // as the job names it, for errors
	rank int
	cmd  *osexec.Cmd
	conn *net.UnixConn
	in   *bufio.Reader   // conn's: a call's header and arguments in one read
	raw  syscall.RawConn // conn's, to poll it (spin)
	io   *rawIO          // conn's reads and writes without the runtime's syscall bookkeeping
	wbuf []byte          // a reply's header and payload, written in one call
	spin time.Duration   // how long to poll for the program's next call before sleeping
	// skip and backoff: turns to park at once after polls that found nothing
	skip, backoff int
	out           *tail
	done          chan struct{} // closed when the process has been reaped
	err           error         // its exit status, once done is closed
}

// startProgram starts path with args as a child of the worker: its end of
// a Unix socket pair is file descriptor 3 (GRIDHPC_FD), the shared window
// file descriptor 4 (GRIDHPC_SHM_FD), its output goes to
// a tail kept for error messages and, line by line, to log (the node's
// log, when the engine gives one), and it dies with the worker (the parent
// death signal, and the worker's process group on a local grid). Both sides
// poll for the other's next turn for spin before they sleep
// (GRIDHPC_SPIN_NS).
func startProgram(path string, args []string, rank, cores int, win *window, spin time.Duration, log io.Writer, env ...string) (*program, error) {
	fds, err := socketPair()
	if err != nil {
		return nil, fmt.Errorf("exec: program %s: socket pair: %w", path, err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "gridhpc"), os.NewFile(uintptr(fds[1]), "gridhpc-program")
	defer theirs.Close()
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("exec: program %s: %w", path, err)
	}
	p := &program{name: path, rank: rank, conn: fc.(*net.UnixConn), out: &tail{log: log, prefix: fmt.Sprintf("program %s (rank %d): ", filepath.Base(path), rank)}, done: make(chan struct{}), spin: spin}
	if p.raw, err = p.conn.SyscallConn(); err != nil {
		p.conn.Close()
		return nil, fmt.Errorf("exec: program %s: %w", path, err)
	}
	p.io = newRawIO(p.conn, p.raw)
	p.in = bufio.NewReaderSize(p.io, 512)
	p.cmd = osexec.Command(path, args...)
	p.cmd.ExtraFiles = []*os.File{theirs, win.file}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.Env = append(os.Environ(), fdEnv+"=3", shmEnv+"=4", "GRIDHPC_RANK="+strconv.Itoa(rank),
		spinEnv+"="+strconv.FormatInt(spin.Nanoseconds(), 10))
	p.cmd.Env = append(p.cmd.Env, env...)
	if os.Getenv("OMP_NUM_THREADS") == "" {
		p.cmd.Env = append(p.cmd.Env, "OMP_NUM_THREADS="+strconv.Itoa(cores))
	}
	p.cmd.SysProcAttr = childAttr()
	if err := p.cmd.Start(); err != nil {
		p.conn.Close()
		return nil, fmt.Errorf("exec: program %s on rank %d: %w", path, rank, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exitWait is how long the worker waits for a program that closed its
// socket to exit, before it calls it hung.
const exitWait = 2 * time.Second

// gone explains why the program stopped talking (its socket reached EOF
// or broke): how it exited and the last line it printed.
func (p *program) gone(while string) error {
	var how string
	select {
	case <-p.done:
		var ee *osexec.ExitError
		switch {
		case p.err == nil:
			how = "exited with status 0"
		case errors.As(p.err, &ee) && ee.Exited():
			how = fmt.Sprintf("exited with status %d", ee.ExitCode())
		case errors.As(p.err, &ee):
			how = "crashed (" + ee.String() + ")"
		default:
			how = "ended: " + p.err.Error()
		}
	case <-time.After(exitWait):
		how = "closed its connection and did not exit"
	}
	return p.fail("%s %s%s", how, while, p.out.lastLine())
}

// fail returns an error naming the program and its rank.
func (p *program) fail(format string, a ...any) error {
	return fmt.Errorf("exec: program %s on rank %d: %s", p.name, p.rank, fmt.Sprintf(format, a...))
}

// await polls the program's socket for its next call for up to p.spin,
// yielding the CPU between polls, before the read that parks the goroutine
// until the call comes: a call that comes within it costs no sleep and
// wake-up of the worker. A poll that found nothing makes the next turns
// park at once, 1, 2, 4 … 64 of them in a row (gridhpc.c does the same):
// a program whose sweeps are long, or a busy host, stops the polling.
func (p *program) await() {
	if p.spin <= 0 || p.in.Buffered() > 0 {
		return
	}
	if p.skip > 0 {
		p.skip--
		return
	}
	end := time.Now().Add(p.spin)
	came := false
	p.raw.Read(func(fd uintptr) bool {
		for !came && time.Now().Before(end) {
			if came = readable(int(fd)); !came {
				yield()
			}
		}
		return true
	})
	switch {
	case came:
		p.backoff = 0
	case p.backoff == 0:
		p.backoff = 1
	default:
		p.backoff = min(2*p.backoff, 64)
	}
	p.skip = p.backoff
}

// kill ends the program if it still runs and reaps it.
func (p *program) kill() {
	p.conn.Close()
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// tail keeps the last bytes a program wrote to its stdout and stderr, and
// passes each complete line, prefixed, to log (if any).
type tail struct {
	mu     sync.Mutex
	b      []byte
	log    io.Writer
	prefix string
	line   []byte // the line being written, for log
}

const tailMax = 4096

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	if t.log != nil {
		t.logLines(b)
	}
	return len(b), nil
}

// logLines writes the complete lines of b (with what came before) to log,
// a line longer than tailMax in pieces.
func (t *tail) logLines(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.line = append(t.line, b...)
			if len(t.line) >= tailMax {
				t.flushLine()
			}
			return
		}
		t.line = append(t.line, b[:i]...)
		t.flushLine()
		b = b[i+1:]
	}
}

func (t *tail) flushLine() {
	t.log.Write([]byte(t.prefix + string(t.line) + "\n"))
	t.line = t.line[:0]
}

// lastLine returns `; it printed "…"` with the program's last line of
// output, or "".
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := bytes.TrimRight(t.b, "\n\r\t ")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) == 0 {
		return ""
	}
	return fmt.Sprintf("; its last output: %q", strings.TrimSpace(string(b)))
}
