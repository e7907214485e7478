package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// Worker is a started `gridtui worker`: remote over SSH or a local process.
// Its lifetime is bound to its stdin: closing it (Stop, or the console
// going away) makes the worker exit, so nothing is left running.
type Worker struct {
	// Host is where the worker runs.
	Host inventory.
		// Hello is what the worker reported when it started.
		Host

	Hello Hello

	done chan struct{}
	err  error // set before done is closed
	// gone, when set (a local worker), is closed once the process is
	// reaped: done may close before, as soon as SIGKILL is seen sent to it.
	gone   chan struct{}
	ended  bool // exited has run (under mu): done is closed
	stdin  io.WriteCloser
	stderr *tailBuffer
	stdout *tailBuffer // what it printed after its hello (a gateway's counters)
	kill   func()      // forcibly ends the worker (SIGKILL / close the session)
	// yield, when set (a local worker), lowers or restores the worker's
	// priority (see Yield).
	yield func(bool)
	// killHung, when set, makes sure a worker that did not exit on time is
	// gone even where kill cannot reach it (an sshd that ignores signal
	// requests, a stopped process that never sees its stdin close).
	killHung func()
	// oomLine, when set, returns the kernel's log line of the out-of-memory
	// killer ending the worker ("" if it did not).
	oomLine func() string
	// dump, when set (a local worker), sends the process SIGQUIT with its
	// stderr bound for its log file, unless it is stopped or gone; false
	// if it did not.
	dump    func() bool
	stopped bool
	mu      sync.Mutex
	timeout time.Duration
	ev      *emitter
}

// ErrWorkerExited is wrapped when a worker exits before it was stopped.
var ErrWorkerExited = errors.New("deploy: worker exited")

// Done is closed when the worker has exited, or, for a local worker, as
// soon as SIGKILL is seen sent to its process (which then cannot but end,
// though on a crowded host its last threads may take seconds to be
// scheduled for their exit): see Gone.
func (w *Worker) Done() <-chan struct{} { return w.done }

// Gone is closed once the worker's process is gone: for a local worker when
// it is reaped, for the others with Done.
func (w *Worker) Gone() <-chan struct{} {
	if w.gone != nil {
		return w.gone
	}
	return w.done
}

// Err is nil while the worker runs and after a clean exit or Stop; it wraps
// ErrWorkerExited (with the tail of the worker's stderr) otherwise.
func (w *Worker) Err() error {
	select {
	case <-w.done:
		return w.err
	default:
		return nil
	}
}

// LastLine returns the last complete line the process printed on stdout
// after its hello ("" if none): a gateway prints its counters there.
func (w *Worker) LastLine() string {
	s := strings.TrimRight(w.stdout.String(), "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if !strings.HasSuffix(w.stdout.String(), "\n") {
		return ""
	}
	return s
}

// LastOutput returns when the process last printed on stdout after its
// hello (zero if it did not): a gateway prints its counters periodically,
// so a silence longer than its period says it is hung, stopped or cut off.
func (w *Worker) LastOutput() time.Time {
	w.stdout.mu.Lock()
	defer w.stdout.mu.Unlock()
	return w.stdout.at
}

// WriteLine writes v as one JSON line on the process's stdin (a gateway's
// peers, after its hello).
func (w *Worker) WriteLine(v any) error {
	return writeJSONLine(w.stdin, v, "line")
}

// Stop closes the worker's stdin, waits up to Options.StopTimeout for it to
// exit, kills it if it does not, and waits for it to be gone (Gone).
func (w *Worker) Stop(ctx context.Context) error {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.stdin.Close()
	t := time.NewTimer(w.timeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.forceKill()
	case <-ctx.Done():
		w.forceKill()
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		return fmt.Errorf("deploy: stop worker %s on %s: %w", w.Hello.Node, w.Host.Name, ctx.Err())
	}
	w.kill() // the process group, for a local worker's children
	select {
	case <-w.Gone():
	case <-ctx.Done():
		return fmt.Errorf("deploy: stop worker %s on %s: killed, not yet gone: %w", w.Hello.Node, w.Host.Name, ctx.Err())
	}
	w.ev.emit(w.Host.Name, PhaseStopped, 1, "", nil)
	return nil
}

// DumpStacks asks a local worker named hung for its goroutine stacks before
// it is stopped: SIGQUIT, which the Go runtime answers by writing every
// goroutine's stack on stderr and exiting, with its stderr from then on
// appended to the worker's log file (`gridtui logs`). It waits at most d
// for the worker to end, and reports whether it did. A worker that is not
// a local process, has ended, or is stopped by a signal (which would hold
// SIGQUIT pending) is left as it is. Its exit is not a failure of its own.
func (w *Worker) DumpStacks(d time.Duration) bool {
	if w.dump == nil {
		return false
	}
	select {
	case <-w.done:
		return false
	default:
	}
	// Marked stopped before the signal, so that its exit, however soon,
	// is not reported as a failure; unmarked if no signal was sent.
	w.mu.Lock()
	was := w.stopped
	w.stopped = true
	w.mu.Unlock()
	if !w.dump() {
		w.mu.Lock()
		w.stopped = was
		w.mu.Unlock()
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.done:
		return true
	case <-t.C:
		return false
	}
}

// forceKill ends a worker that did not exit when asked.
func (w *Worker) forceKill() {
	if w.killHung != nil {
		w.killHung() // first: closing the session may close the connection
	}
	w.kill()
}

// exited records how the worker ended and closes done, the first time it
// is called (a local worker's end is seen when SIGKILL is sent to it, and
// again when it is reaped).
func (w *Worker) exited(node string, err error) {
	w.mu.Lock()
	stopped, ended := w.stopped, w.ended
	w.ended = true
	w.mu.Unlock()
	if ended {
		return
	}
	if err != nil && !stopped {
		tail := strings.TrimSpace(w.stderr.String())
		if killedHard(err) {
			// Killed from outside: what it last logged says nothing of why
			// (and repeats its own prefixes in the cause).
			err, tail = w.killed(err), ""
		}
		if tail != "" {
			err = fmt.Errorf("%w: %s on %s: %w: %s", ErrWorkerExited, node, w.Host.Name, err, tail)
		} else {
			err = fmt.Errorf("%w: %s on %s: %w", ErrWorkerExited, node, w.Host.Name, err)
		}
		w.ev.emit(w.Host.Name, PhaseFailed, 0, "worker exited", err)
	} else if !stopped {
		err = fmt.Errorf("%w: %s on %s without being stopped", ErrWorkerExited, node, w.Host.Name)
		w.ev.emit(w.Host.Name, PhaseFailed, 0, "worker exited", err)
	} else {
		err = nil
	}
	w.err = err
	close(w.done)
}

// killed says how a worker that ended by SIGKILL was killed: by the
// kernel's out-of-memory killer when its log says so.
func (w *Worker) killed(err error) error {
	if w.oomLine != nil {
		if line := w.oomLine(); line != "" {
			return fmt.Errorf("%w, %w (the kernel's log: %q): %w", ErrKilled, ErrOutOfMemory, line, err)
		}
	}
	return fmt.Errorf("%w: %w", ErrKilled, err)
}

// handshake sends the boot line and waits for the hello, at most timeout.
// abort is called on timeout or ctx end to unblock the read.
func handshake(ctx context.Context, stdin io.Writer, stdout io.Reader, b Boot, timeout time.Duration, abort func()) (Hello, error) {
	if err := WriteBoot(stdin, b); err != nil {
		return Hello{}, err
	}
	type res struct {
		h   Hello
		err error
	}
	ch := make(chan res, 1)
	go func() {
		h, err := ReadHello(stdout, b.Node)
		ch <- res{h, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.h, r.err
	case <-t.C:
		abort()
		return Hello{}, fmt.Errorf("deploy: no hello from %s within %v", b.Node, timeout)
	case <-ctx.Done():
		abort()
		return Hello{}, fmt.Errorf("deploy: hello from %s: %w", b.Node, ctx.Err())
	}
}

// tailBuffer keeps the last max bytes written (a worker's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool // bytes were dropped: buf may start inside a line
	// at is when the last bytes arrived (zero: none yet).
	at time.Time
}

func newTail() *tailBuffer { return &tailBuffer{max: 4096} }

// Write appends p, dropping the oldest bytes beyond max.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.at = time.Now()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

// lines returns the kept tail from its first whole line.
func (t *tailBuffer) lines() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// Yield makes a local worker give way to the others on its crowded host
// (yield true: it runs localMemberNice nicer than the console instead of
// localWorkerNice), or restores its priority (false: best effort, since
// only a privileged console may raise a priority again). Workers started
// otherwise than locally are left as they are: their hosts are theirs.
func (w *Worker) Yield(yield bool) {
	if w.yield != nil {
		w.yield(yield)
	}
}

// LogTail returns the last lines the worker wrote to its stderr (where it
// logs, besides its log file on its host), from the first whole line of
// what the console keeps.
func (w *Worker) LogTail() string { return w.stderr.lines() }

// String returns the kept tail.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// StartWorkers starts one worker per host — over SSH, as a local process,
// or as a step of a batch allocation obtained from the site's frontend, by
// the site's launcher — writes boot(host) to its stdin and waits for every
// hello (Options.HelloTimeout). If any fails, the ones started are stopped
// and the error names every failed host.
func StartWorkers(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, boot func(inventory.Host) Boot, opt Options) ([]*Worker, error) {
	ev := &emitter{fn: opt.Events}
	var pool *sshclient.Pool
	release := func() {}
	if needsSSH(inv, hosts) {
		p, done, err := poolFor(inv, opt)
		if err != nil {
			return nil, err
		}
		pool, release = p, refCounted(done, len(hosts))
	}
	workers := make([]*Worker, len(hosts))
	allocs := newAllocations(inv, pool, hosts, boot, ev)
	s := fanOut(ctx, hosts, opt.width(), func(ctx context.Context, i int, h inventory.Host) Result {
		ev.emit(h.Name, PhaseStart, 0, "", nil)
		var w *Worker
		b := boot(h)
		err := b.Validate()
		switch {
		case err != nil:
			release()
		case sched.SchedulerFor(string(launcherOf(inv, h))) != nil:
			w, err = allocs.start(ctx, h, b, opt, release)
		case launcherOf(inv, h) == inventory.LauncherLocal:
			w, err = startLocal(ctx, h, b, opt, ev)
			release()
		default:
			w, err = startRemote(ctx, pool, h, b, opt, ev, release)
		}
		if err != nil {
			ev.emit(h.Name, PhaseFailed, 0, "start", err)
			return Result{Host: h.Name, Phase: PhaseFailed, Detail: "start", Err: err}
		}
		workers[i] = w
		ev.emitHello(h.Name, strings.Join(w.Hello.Listen, " "), w.Hello)
		return Result{Host: h.Name, Phase: PhaseReady}
	})
	if err := s.Err(); err != nil {
		stopAll(workers, opt)
		return nil, err
	}
	return workers, nil
}

// stopAll stops every started worker in parallel.
func stopAll(workers []*Worker, opt Options) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*opt.stopTimeout())
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range workers {
		if w != nil {
			wg.Go(func() { w.Stop(ctx) })
		}
	}
	wg.Wait()
}

// refCounted returns a release function that calls done after n calls: the
// private pool of StartWorkers closes when its last worker is gone.
func refCounted(done func(), n int) func() {
	var mu sync.Mutex
	return func() {
		mu.Lock()
		defer mu.Unlock()
		n--
		if n == 0 {
			done()
		}
	}
}

func (o Options) helloTimeout() time.Duration {
	if o.HelloTimeout > 0 {
		return o.HelloTimeout
	}
	return DefaultHelloTimeout
}

func (o Options) stopTimeout() time.Duration {
	if o.StopTimeout > 0 {
		return o.StopTimeout
	}
	return DefaultStopTimeout
}
