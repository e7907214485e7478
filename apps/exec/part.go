package exec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"time"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// part is one worker's share run by a program: the iteration-level Part
// whose Sweep lets the program run one iteration of its loop. Between two
// GRID_Iterate calls the program receives its halos (the engine filled
// them before Sweep), computes, and sends what its neighbours need (read
// by the engine through Outgoing after Sweep); GRID_Iterate hands the
// local σ to the engine's detector, and its reply — given when the engine
// starts the next sweep, or asks for the result — says go on or stop.
type part struct {
	p       *program
	sub     subtaskMsg
	index   map[int]int // neighbour rank → index
	out     [][]float64 // what the program last sent to each neighbour
	halo    [][]float64 // what the engine last received from each
	fresh   []bool      // halo i is newer than the program's last receive of it
	result  []float64   // the program's values and its last σ
	sigma   float64
	timeout time.Duration
	hdr     [headerLen + 8]byte
	stash   *request // a request read before Sweep could answer it
	waiting bool     // the program waits for the answer to its GRID_Iterate
	stopped bool
	iter    int // GRID_Iterate calls answered
}

// request is a blocking call of the program, read and not yet answered.
type request struct {
	h     header
	size  uint64  // GRID_Receive: the buffer's bytes
	sigma float64 // GRID_Iterate
}

// newPart starts the program and takes its first sends (the values its
// neighbours need before the first sweep).
func newPart(p *program, sub subtaskMsg, timeout time.Duration) (*part, error) {
	pt := &part{p: p, sub: sub, index: map[int]int{}, timeout: timeout, sigma: math.NaN()}
	for i, q := range sub.neighbours {
		pt.index[q] = i
		pt.out = append(pt.out, make([]float64, sub.halo))
		pt.halo = append(pt.halo, make([]float64, sub.halo))
		pt.fresh = append(pt.fresh, false)
	}
	pt.result = make([]float64, sub.size+1)
	if err := pt.hello(); err != nil {
		p.kill()
		return nil, err
	}
	sent := make([]bool, len(sub.neighbours))
	r, err := pt.serve(sent)
	if err == nil {
		for i, ok := range sent {
			if !ok && r.h.kind != kindResult {
				err = p.fail("called %s before sending its first values to rank %d (send once before the loop, then after each sweep: see gridhpc.h)",
					kindName(r.h.kind), sub.neighbours[i])
				break
			}
		}
	}
	if err != nil {
		p.kill()
		return nil, err
	}
	pt.stash = r
	return pt, nil
}

// hello reads the program's GRID_Init and answers with its sub-task.
func (pt *part) hello() error {
	p := pt.p
	p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	h, err := readHeader(p.conn, pt.hdr[:])
	if err != nil {
		return pt.readErr(err, "without calling GRID_Init")
	}
	if h.kind != kindHello || h.len != 4 {
		return p.fail("sent %s (%d bytes) first, want GRID_Init", kindName(h.kind), h.len)
	}
	if _, err := io.ReadFull(p.conn, pt.hdr[:4]); err != nil {
		return pt.readErr(err, "in GRID_Init")
	}
	if v := binary.LittleEndian.Uint32(pt.hdr[:4]); v != protocolVersion {
		return p.fail("speaks protocol %d, this worker %d: rebuild it with this gridtui's gridhpc.c", v, protocolVersion)
	}
	return pt.reply(statusOK, pt.sub.encode())
}

// readErr turns a failed read from the program into the run's error.
func (pt *part) readErr(err error, while string) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return pt.p.fail("no call for %v %s (hung? the job's timeout parameter bounds it)", pt.timeout, while)
	}
	if errors.Is(err, errBadFrame) {
		return pt.p.fail("%v: does it link this gridtui's gridhpc.c?", err)
	}
	return pt.p.gone(while)
}

// reply answers the program's blocking call.
func (pt *part) reply(status int32, payload []byte) error {
	var h [headerLen]byte
	header{kind: kindReply, arg: status, len: uint64(len(payload))}.encode(h[:])
	bufs := net.Buffers{h[:], payload}
	if _, err := bufs.WriteTo(pt.p.conn); err != nil {
		return pt.p.gone("while the worker answered it")
	}
	return nil
}

// serve reads the program's calls, storing its sends (marked in sent when
// not nil) and answering receives and waits from the halos, until it blocks
// on GRID_Iterate or GRID_Result (or, with sent, on its first receive or
// wait: the engine has not filled the halos yet), and returns that call.
func (pt *part) serve(sent []bool) (*request, error) {
	for {
		r := pt.stash
		pt.stash = nil
		if r == nil {
			var err error
			if r, err = pt.read(); err != nil {
				return nil, err
			}
		}
		switch r.h.kind {
		case kindSend:
			i, err := pt.takeSend(r.h)
			if err != nil {
				return nil, err
			}
			if sent != nil {
				sent[i] = true
			}
			continue
		case kindReceive, kindWait:
			if sent != nil {
				return r, nil
			}
			if err := pt.answer(r); err != nil {
				return nil, err
			}
			continue
		case kindAbort:
			return nil, pt.abort(r.h)
		case kindHello:
			return nil, pt.p.fail("called GRID_Init twice")
		}
		return r, nil // iterate, result
	}
}

// read reads the next call of the program and its fixed-size arguments.
func (pt *part) read() (*request, error) {
	h, err := readHeader(pt.p.conn, pt.hdr[:])
	if err != nil {
		return nil, pt.readErr(err, "during iteration "+fmt.Sprint(pt.iter+1))
	}
	r := &request{h: h}
	switch h.kind {
	case kindReceive, kindIterate:
		if h.len != 8 {
			return nil, pt.p.fail("%s with %d bytes of arguments, want 8", kindName(h.kind), h.len)
		}
		if _, err := io.ReadFull(pt.p.conn, pt.hdr[:8]); err != nil {
			return nil, pt.readErr(err, "in "+kindName(h.kind))
		}
		r.size = binary.LittleEndian.Uint64(pt.hdr[:8])
		r.sigma = math.Float64frombits(r.size)
	case kindWait:
		if h.len != 0 {
			return nil, pt.p.fail("GRID_Wait with %d bytes of arguments", h.len)
		}
	}
	return r, nil
}

// neighbour returns the index of neighbour rank q for call.
func (pt *part) neighbour(q int32, call string) (int, error) {
	i, ok := pt.index[int(q)]
	if !ok {
		return 0, pt.p.fail("%s with rank %d, which is not a neighbour (neighbours %v)", call, q, pt.sub.neighbours)
	}
	return i, nil
}

// takeSend reads a GRID_Send's message into the neighbour's outgoing
// values: DATA only, of exactly the halo's size.
func (pt *part) takeSend(h header) (int, error) {
	i, err := pt.neighbour(h.arg, "GRID_Send")
	if err != nil {
		return 0, err
	}
	if h.flags != flagData {
		return 0, pt.p.fail("GRID_Send to rank %d with flags %d: the environment's detectors own the CTRL messages, send DATA_FLAG", h.arg, h.flags)
	}
	want := uint64(8 * pt.sub.halo)
	if h.len != want {
		return 0, pt.p.fail("GRID_Send to rank %d of %d bytes: the halo holds %d bytes (the job's halo parameter × 8)", h.arg, h.len, want)
	}
	if _, err := io.ReadFull(pt.p.conn, floatBytes(pt.out[i])); err != nil {
		return 0, pt.readErr(err, "in GRID_Send")
	}
	return i, nil
}

// answer answers a receive from the halo or a wait from the halos that are
// new to the program.
func (pt *part) answer(r *request) error {
	if r.h.kind == kindWait {
		for i, f := range pt.fresh {
			if f {
				var b [8]byte
				binary.LittleEndian.PutUint32(b[:], uint32(pt.sub.neighbours[i]))
				binary.LittleEndian.PutUint32(b[4:], flagData)
				return pt.reply(statusOK, b[:])
			}
		}
		return pt.reply(statusNoMsg, nil)
	}
	i, err := pt.neighbour(r.h.arg, "GRID_Receive")
	if err != nil {
		return err
	}
	if r.h.flags&^flagNoWait != flagData {
		return pt.p.fail("GRID_Receive from rank %d with flags %d: the environment's detectors own the CTRL messages, receive DATA_FLAG", r.h.arg, r.h.flags)
	}
	if want := uint64(8 * pt.sub.halo); r.size != want {
		return pt.p.fail("GRID_Receive from rank %d into %d bytes: the halo holds %d bytes (the job's halo parameter × 8)", r.h.arg, r.size, want)
	}
	pt.fresh[i] = false
	return pt.reply(statusOK, floatBytes(pt.halo[i]))
}

// abort reads the program's reason and fails the run with it.
func (pt *part) abort(h header) error {
	b := make([]byte, min(h.len, 4096))
	io.ReadFull(pt.p.conn, b)
	if h.flags == 1 { // gridhpc.c caught a call that breaks the rules
		return pt.p.fail("%s", b)
	}
	return pt.p.fail("GRID_Abort: %s", b)
}

// floatBytes views v as its bytes (the program's machine is this one).
func floatBytes(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

// Sweep lets the program run one iteration: it answers the previous
// GRID_Iterate with "go on", serves the program's receives from the halos
// and takes its sends, and returns the σ of its next GRID_Iterate. A
// program that fails, exits, hangs (no call within the timeout) or breaks
// the protocol fails the run.
func (pt *part) Sweep() float64 {
	pt.p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	if pt.waiting {
		pt.waiting = false
		if err := pt.reply(statusOK, nil); err != nil {
			panic(gridapp.Failure{Err: err})
		}
	}
	r, err := pt.serve(nil)
	if err == nil && r.h.kind == kindResult {
		err = pt.p.fail("called GRID_Result before GRID_Iterate returned 0 (the environment decides when the loop ends)")
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
func (pt *part) Received(i int) { pt.fresh[i] = true }

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
	if pt.waiting {
		pt.waiting = false
		if err := pt.reply(statusStop, nil); err != nil {
			return err
		}
	}
	r, err := pt.serve(nil)
	if err != nil {
		return err
	}
	if r.h.kind != kindResult {
		return p.fail("called %s after GRID_Iterate returned 0, want GRID_Result", kindName(r.h.kind))
	}
	if want := uint64(8 * pt.sub.size); r.h.len != want {
		return p.fail("GRID_Result of %d bytes, want %d (%d values: its items × the job's unit)", r.h.len, want, pt.sub.size)
	}
	if _, err := io.ReadFull(p.conn, floatBytes(pt.result[:pt.sub.size])); err != nil {
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

// Close ends the program if it still runs.
func (pt *part) Close() { pt.p.kill() }
