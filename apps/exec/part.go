package exec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// part is one worker's share run by a program: the iteration-level Part
// whose Sweep lets the program run one iteration of its loop. Between two
// GRID_Iterate calls the program reads its halos from the shared window
// (the engine wrote them there before Sweep), computes, and writes what
// its neighbours need into the window (the engine sends it after Sweep);
// GRID_Iterate hands the local σ to the engine's detector, and its reply —
// given when the engine starts the next sweep, or asks for the result —
// says go on or stop.
type part struct {
	p       *program
	win     *window
	sub     subtaskMsg
	out     [][]float64 // the window's values for each neighbour
	halo    [][]float64 // the window's values from each neighbour
	fresh   []byte      // 1: halo i is new since the program's last turn
	result  []float64   // the program's values and its last σ
	sigma   float64
	timeout time.Duration
	hdr     [headerLen + 8]byte
	argBuf  []byte
	stash   *request // a call read before Sweep could answer it
	waiting bool     // the program waits for the answer to its GRID_Iterate
	stopped bool
	iter    int // GRID_Iterate calls answered
	// Checkpoints (checkpoint.go): the bytes the program registered with
	// GRID_CheckpointRegister (0: none, no checkpoints), and the buffers
	// Restore read, for the program's first receive.
	ckBytes uint64
	resume  []byte
}

// request is a blocking call of the program, read and not yet answered.
type request struct {
	h     header
	sigma float64 // GRID_Iterate
	sent  []byte  // GRID_Iterate, the first receive: 1 per neighbour sent to
}

// newPart hands the started program its sub-task and waits for its first
// receive, before which it must have sent its first values (the values its
// neighbours need before the first sweep) to every neighbour.
func newPart(p *program, win *window, sub subtaskMsg, timeout time.Duration) (*part, error) {
	pt := &part{p: p, win: win, sub: sub, timeout: timeout, sigma: math.NaN(),
		fresh: make([]byte, len(sub.neighbours))}
	for i := range sub.neighbours {
		pt.out = append(pt.out, win.floats(16*i*sub.halo, sub.halo))
		pt.halo = append(pt.halo, win.floats((16*i+8)*sub.halo, sub.halo))
	}
	pt.result = make([]float64, sub.size+1)
	if err := pt.hello(); err != nil {
		pt.Close()
		return nil, err
	}
	r, err := pt.serve()
	if err == nil && r.h.kind == kindReceive {
		for i, ok := range r.sent {
			if ok == 0 {
				err = p.fail("called GRID_Receive before sending its first values to rank %d (send once before the loop, then after each sweep: see gridhpc.h)",
					sub.neighbours[i])
				break
			}
		}
	}
	if err == nil && r.h.kind == kindResult {
		err = p.fail("called GRID_Result before GRID_Iterate returned 0 (the environment decides when the loop ends)")
	}
	if err != nil {
		pt.Close()
		return nil, err
	}
	pt.stash = r
	return pt, nil
}

// hello reads the program's GRID_Init and answers with its sub-task.
func (pt *part) hello() error {
	if err := pt.p.readHello(pt.hdr[:], pt.timeout, protocolVersion, "rebuild it with this gridtui's gridhpc.c"); err != nil {
		return err
	}
	return pt.reply(statusOK, pt.sub.encode())
}

// readHello reads the program's GRID_Init, whose protocol must be want.
func (p *program) readHello(hdr []byte, timeout time.Duration, want uint32, rebuild string) error {
	p.conn.SetReadDeadline(time.Now().Add(timeout))
	h, err := readHeader(p.in, hdr)
	if err != nil {
		return p.readErr(err, timeout, "without calling GRID_Init")
	}
	if h.kind == kindAbort && h.flags == 1 { // gridhpc.c could not start
		why := make([]byte, min(h.len, 4096))
		io.ReadFull(p.in, why)
		return p.fail("%s", why)
	}
	if h.kind != kindHello || h.len != 4 {
		return p.fail("sent %s (%d bytes) first, want GRID_Init", kindName(h.kind), h.len)
	}
	if _, err := io.ReadFull(p.in, hdr[:4]); err != nil {
		return p.readErr(err, timeout, "in GRID_Init")
	}
	if v := binary.LittleEndian.Uint32(hdr[:4]); v != want {
		return p.fail("speaks protocol %d, this worker %d: %s", v, want, rebuild)
	}
	return nil
}

// readErr turns a failed read from the program into the run's error.
func (pt *part) readErr(err error, while string) error { return pt.p.readErr(err, pt.timeout, while) }

// readErr turns a failed read from the program into the run's error:
// hung (no call within timeout), a bad frame, or how it ended.
func (p *program) readErr(err error, timeout time.Duration, while string) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return p.fail("no call for %v %s (hung? the job's timeout parameter bounds it)", timeout, while)
	}
	if errors.Is(err, errBadFrame) {
		return p.fail("%v: does it link this gridtui's gridhpc.c?", err)
	}
	return p.gone(while)
}

// reply answers the program's blocking call.
func (pt *part) reply(status int32, payload []byte) error { return replyTo(pt.p, status, payload) }

// replyTo answers the program's blocking call (a reply frame).
func replyTo(p *program, status int32, payload []byte) error {
	n := headerLen + len(payload)
	if cap(p.wbuf) < n {
		p.wbuf = make([]byte, max(n, 256))
	}
	b := p.wbuf[:n]
	header{kind: kindReply, arg: status, len: uint64(len(payload))}.encode(b)
	copy(b[headerLen:], payload)
	if _, err := p.io.Write(b); err != nil {
		return p.gone("while the worker answered it")
	}
	return nil
}

// proceed answers the program's pending receive or GRID_Iterate with "go
// on" and which halos are new.
func (pt *part) proceed() error {
	err := pt.reply(statusOK, pt.fresh)
	clear(pt.fresh)
	return err
}

// serve reads the program's next blocking call — its first receive,
// GRID_Iterate or GRID_Result — and returns it.
func (pt *part) serve() (*request, error) {
	r, err := pt.read()
	if err != nil {
		return nil, err
	}
	switch r.h.kind {
	case kindReceive, kindIterate, kindResult:
		return r, nil
	case kindCkReg:
		if err := pt.registered(r.h); err != nil {
			return nil, err
		}
		return pt.serve()
	case kindAbort:
		return nil, pt.abort(r.h)
	case kindHello:
		return nil, pt.p.fail("called GRID_Init twice")
	}
	return nil, pt.p.fail("sent a frame of kind %d (does it link this gridtui's gridhpc.c?)", r.h.kind)
}

// read reads the next call of the program and its fixed-size arguments:
// GRID_Iterate's σ, and for it and the first receive which neighbours the
// program sent to.
func (pt *part) read() (*request, error) {
	h, err := readHeader(pt.p.in, pt.hdr[:])
	if err != nil {
		if pt.stopped {
			// GRID_Iterate said stop: the program's next call is GRID_Result.
			return nil, pt.readErr(err, "before GRID_Result (after GRID_Iterate returned 0, it must hand over its values)")
		}
		return nil, pt.readErr(err, "during iteration "+fmt.Sprint(pt.iter+1))
	}
	r := &request{h: h}
	nb := len(pt.sub.neighbours)
	var want int
	switch h.kind {
	case kindIterate:
		want = 8 + nb
	case kindReceive:
		want = nb
	case kindResult, kindAbort, kindCkReg, kindCkData:
		return r, nil
	}
	if h.len != uint64(want) {
		return nil, pt.p.fail("%s with %d bytes of arguments, want %d", kindName(h.kind), h.len, want)
	}
	if want > 0 {
		b := pt.args(want)
		if _, err := io.ReadFull(pt.p.in, b); err != nil {
			return nil, pt.readErr(err, "in "+kindName(h.kind))
		}
		if h.kind == kindIterate {
			r.sigma = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
		r.sent = b
	}
	return r, nil
}

// args returns a buffer for n bytes of a call's arguments.
func (pt *part) args(n int) []byte {
	if cap(pt.argBuf) < n {
		pt.argBuf = make([]byte, n)
	}
	return pt.argBuf[:n]
}

// abort reads the program's reason and fails the run with it.
func (pt *part) abort(h header) error {
	b := make([]byte, min(h.len, 4096))
	io.ReadFull(pt.p.in, b)
	if h.flags == 1 { // gridhpc.c caught a call that breaks the rules
		return pt.p.fail("%s", b)
	}
	return pt.p.fail("GRID_Abort: %s", b)
}

// Sweep lets the program run one iteration: it answers the previous
// GRID_Iterate with "go on", serves the program's receives from the halos
// and takes its sends, and returns the σ of its next GRID_Iterate. A
// program that fails, exits, hangs (no call within the timeout) or breaks
// the protocol fails the run.
func (pt *part) Sweep() float64 {
	pt.p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	r := pt.stash
	pt.stash = nil
	var err error
	switch {
	case r != nil && r.h.kind == kindIterate: // it swept before its first receive
	case r != nil || pt.waiting: // its first receive, or the last GRID_Iterate
		pt.waiting = false
		if err = pt.restored(); err == nil {
			err = pt.proceed()
		}
		if err == nil {
			pt.p.await()
			r, err = pt.serve()
		}
	default: // the engine calls Sweep once per iteration: not reached
		r, err = pt.serve()
	}
	switch {
	case err != nil:
	case r.h.kind == kindResult:
		err = pt.p.fail("called GRID_Result before GRID_Iterate returned 0 (the environment decides when the loop ends)")
	case r.h.kind == kindReceive:
		err = pt.p.fail("asked for its first halos twice (does it link this gridtui's gridhpc.c?)")
	}
	if err != nil {
		panic(gridapp.Failure{Err: err})
	}
	pt.waiting = true
	pt.iter++
	pt.sigma = r.sigma
	return r.sigma
}

// Outgoing returns what the program last sent to neighbour i.
func (pt *part) Outgoing(i int) []float64 { return pt.out[i] }

// Halo returns neighbour i's values for the program's next receive.
func (pt *part) Halo(i int) []float64 { return pt.halo[i] }

// Received marks neighbour i's halo as new (GRID_Wait reports it).
func (pt *part) Received(i int) { pt.fresh[i] = 1 }

// Result answers the program's last GRID_Iterate with "stop", takes the
// values it hands back with GRID_Result and waits for it to exit. The
// part's last σ follows the values (Assemble strips it).
func (pt *part) Result() []float64 {
	if err := pt.finish(); err != nil {
		panic(gridapp.Failure{Err: err})
	}
	return pt.result
}

func (pt *part) finish() error {
	if pt.stopped {
		return nil
	}
	pt.stopped = true
	p := pt.p
	p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	if pt.waiting || pt.stash != nil && pt.stash.h.kind == kindReceive {
		pt.waiting, pt.stash = false, nil
		if err := pt.restored(); err != nil {
			return err
		}
		if err := pt.reply(statusStop, nil); err != nil {
			return err
		}
	}
	r := pt.stash
	pt.stash = nil
	if r == nil {
		var err error
		if r, err = pt.serve(); err != nil {
			return err
		}
	}
	if r.h.kind != kindResult {
		return p.fail("called %s after GRID_Iterate returned 0, want GRID_Result", kindName(r.h.kind))
	}
	if want := uint64(8 * pt.sub.size); r.h.len != want {
		return p.fail("GRID_Result of %d bytes, want %d (%d values: its items × the job's unit)", r.h.len, want, pt.sub.size)
	}
	if _, err := io.ReadFull(p.in, unsafe.Slice((*byte)(unsafe.Pointer(&pt.result[0])), 8*pt.sub.size)); err != nil {
		return pt.readErr(err, "in GRID_Result")
	}
	pt.result[pt.sub.size] = pt.sigma
	if err := pt.reply(statusOK, nil); err != nil {
		return err
	}
	select {
	case <-p.done:
		if p.err != nil {
			return p.gone("after GRID_Result")
		}
	case <-time.After(pt.timeout):
		return p.fail("did not exit within %v of GRID_Result", pt.timeout)
	}
	return nil
}

// Close ends the program if it still runs and releases the window.
func (pt *part) Close() {
	pt.p.kill()
	pt.win.close()
}
