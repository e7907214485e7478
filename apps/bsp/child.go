package bsp

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// process is a running BSPlib program and the worker's end of its socket.
type process struct {
	name string // as the job names it
	pid  int
	cmd  *osexec.Cmd
	conn *net.UnixConn
	in   *bufio.Reader
	out  *output
	done chan struct{} // closed once reaped
	err  error         // its exit status, once done is closed
}

// start starts path as process pid of nprocs, a child of the worker: its
// end of a Unix socket pair is file descriptor 3 (BSP_FD), its output is
// kept for the report and errors, and it dies with the worker.
func start(path string, args []string, pid, nprocs, cores int) (*process, error) {
	fds, err := socketPair()
	if err != nil {
		return nil, fmt.Errorf("bsp: program %s: socket pair: %w", path, err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "bsp"), os.NewFile(uintptr(fds[1]), "bsp-program")
	defer theirs.Close()
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("bsp: program %s: %w", path, err)
	}
	p := &process{name: path, pid: pid, conn: fc.(*net.UnixConn), out: &output{}, done: make(chan struct{})}
	p.in = bufio.NewReaderSize(p.conn, 64<<10)
	p.cmd = osexec.Command(path, args...)
	p.cmd.ExtraFiles = []*os.File{theirs}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.Env = append(os.Environ(), "BSP_FD=3", "BSP_PID="+strconv.Itoa(pid), "BSP_NPROCS="+strconv.Itoa(nprocs))
	if os.Getenv("OMP_NUM_THREADS") == "" {
		p.cmd.Env = append(p.cmd.Env, "OMP_NUM_THREADS="+strconv.Itoa(cores))
	}
	p.cmd.SysProcAttr = childAttr()
	if err := p.cmd.Start(); err != nil {
		p.conn.Close()
		return nil, fmt.Errorf("bsp: program %s as process %d: %w", path, pid, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exitWait is how long the worker waits for a program that closed its
// socket to exit.
const exitWait = 2 * time.Second

// status says how the program ended, or that it did not exit.
func (p *process) status() (string, bool) {
	select {
	case <-p.done:
		var ee *osexec.ExitError
		switch {
		case p.err == nil:
			return "exited with status 0", true
		case errors.As(p.err, &ee) && ee.Exited():
			return fmt.Sprintf("exited with status %d", ee.ExitCode()), false
		case errors.As(p.err, &ee):
			return "crashed (" + ee.String() + ")", false
		default:
			return "ended: " + p.err.Error(), false
		}
	case <-time.After(exitWait):
		return "closed its connection and did not exit", false
	}
}

// gone explains why the program stopped talking while in call.
func (p *process) gone(while string) error {
	how, _ := p.status()
	return p.fail("%s %s%s", how, while, p.out.lastLine())
}

// fail returns an error naming the program and its process number.
func (p *process) fail(format string, a ...any) error {
	return fmt.Errorf("bsp: program %s, process %d: %s", p.name, p.pid, fmt.Sprintf(format, a...))
}

// kill ends the program if it still runs and reaps it.
func (p *process) kill() {
	p.conn.Close()
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// output keeps the last bytes a program wrote to its stdout and stderr.
type output struct {
	mu sync.Mutex
	b  []byte
}

// outputMax is how much of a program's output a worker keeps.
const outputMax = 4096

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b = append(o.b, b...)
	if len(o.b) > outputMax {
		o.b = append(o.b[:0], o.b[len(o.b)-outputMax:]...)
	}
	return len(b), nil
}

func (o *output) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]byte(nil), o.b...)
}

// lastLine returns `; its last output: "…"`, or "".
func (o *output) lastLine() string {
	s := strings.TrimSpace(string(o.bytes()))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return fmt.Sprintf("; its last output: %q", s)
}

// locate finds the program on this host: absolute as it is, relative from
// the worker's directory, a bare name not there in PATH.
func locate(path string, pid int) (string, error) {
	full := path
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("bsp: process %d: %w", pid, err)
		}
		full = filepath.Join(wd, path)
		if _, err := os.Stat(full); err != nil && !strings.ContainsRune(path, '/') {
			if lp, err := osexec.LookPath(path); err == nil {
				full = lp
			}
		}
	}
	st, err := os.Stat(full)
	if err != nil {
		return "", fmt.Errorf("bsp: program %s for process %d: %w", path, pid, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("bsp: program %s for process %d: not an executable file", full, pid)
	}
	return full, nil
}
