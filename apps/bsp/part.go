package bsp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
	"github.com/gridtui/gridtui/rmnp"
)

// part is one worker's process of the BSP program.
type part struct {
	p          *process
	sub        gridapp.Subtask
	timeout    time.Duration
	x          bsp.Exchanger
	stats      bsp.Stats
	profile    bsp.Profile // the supersteps, for prediction
	nprocs     int         // after bsp_begin
	idle       bool        // beyond bsp_begin's maxprocs: took no part
	buf, frame []byte
	result     []float64
	noShare    bool      // the job's shared = false
	shm        *shared   // the file the processes share, or nil
	seen       bsp.Stats // the figures of shm's supersteps already counted
	ctx        context.Context
	c          gridapp.Comm
	stepping   bool // between bsp_begin and bsp_end
	// Checkpoints: the last one's buffers and superstep, and what a
	// restarted run resumes from (Restore).
	snap       []byte
	snapAt     int
	resumeAt   int
	resumeSnap []byte
}

// Sweep, Outgoing and Halo are not called: the part is a Calculator.
func (pt *part) Sweep() float64         { return math.NaN() }
func (pt *part) Outgoing(int) []float64 { return []float64{} }
func (pt *part) Halo(int) []float64     { return []float64{} }

// Result returns the process's totals and the tail of its output.
func (pt *part) Result() []float64 { return pt.result }

// Close ends the program if it still runs.
func (pt *part) Close() {
	pt.p.kill()
	if pt.shm != nil {
		pt.shm.close()
	}
}

// Calculate follows the program from bsp_begin to bsp_end, performing
// each superstep it hands over.
func (pt *part) Calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	o, err := pt.calculate(ctx, c)
	if err != nil && ctx.Err() == nil && !errors.Is(err, rmnp.ErrPeerDown) {
		// A Part's failure: the engine names the node and the application.
		panic(gridapp.Failure{Err: err})
	}
	return o, err
}

func (pt *part) calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	stop := context.AfterFunc(ctx, func() { pt.p.conn.SetReadDeadline(time.Now()) })
	defer stop()
	t, err := bsp.CommTransport(c, pt.sub.Neighbours)
	if err != nil {
		return gridapp.Outcome{}, err
	}
	pt.ctx, pt.c = ctx, c
	if err := pt.share(ctx, t); err != nil {
		return gridapp.Outcome{}, err
	}
	if err := pt.begin(); err != nil {
		return gridapp.Outcome{}, err
	}
	pt.x = bsp.Exchanger{T: t, Pid: pt.sub.Rank, NProcs: pt.nprocs}
	if !pt.idle {
		if err := pt.supersteps(ctx, c); err != nil {
			return gridapp.Outcome{}, err
		}
	}
	if err := pt.exit(); err != nil {
		return gridapp.Outcome{}, err
	}
	pt.result = encodeResult(pt.stats, pt.profile.Groups(), pt.p.out.bytes(), pt.idle)
	return gridapp.Outcome{Iterations: pt.stats.Supersteps, Converged: true}, nil
}

// next reads the program's next frame, within the timeout.
func (pt *part) next(while string) (frame, error) {
	if err := pt.await(while); err != nil {
		return frame{}, err
	}
	if pt.timeout > 0 {
		pt.p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	} else if pt.shm != nil {
		pt.p.conn.SetReadDeadline(time.Time{})
	}
	f, buf, err := readFrame(pt.p.in, pt.buf)
	pt.buf = buf
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return f, pt.p.fail("hung: no BSPlib call for %v %s%s", pt.timeout, while, pt.p.out.lastLine())
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed):
		return f, pt.p.gone(while)
	case err != nil:
		return f, pt.p.fail("%v %s", err, while)
	case f.kind == kindAbort:
		return f, pt.abort(f)
	}
	return f, nil
}

// abort turns the program's kindAbort into the run's error.
func (pt *part) abort(f frame) error {
	text := sanitize(string(f.payload))
	if f.arg == 0 {
		return pt.p.fail("bsp_abort: %s", text)
	}
	call, rule, _ := strings.Cut(text, "\n")
	err := &bsp.RuleError{Pid: int(f.arg) - 1, Call: call, Rule: rule}
	if pt.sharedGone(call, rule) {
		// The part that created the shared file ended (its program failed
		// first) before this program began: a consequence, reported as a
		// lost neighbour is, after the cause.
		return fmt.Errorf("bsp: program %s: %w (the part that created it ended: %w)", pt.p.name, err, rmnp.ErrPeerDown)
	}
	return fmt.Errorf("bsp: program %s: %w", pt.p.name, err)
}

// sharedGone reports a program's bsp_begin that found the shared file of
// its host gone.
func (pt *part) sharedGone(call, rule string) bool {
	if pt.shm == nil || call != "bsp_begin" || !strings.HasPrefix(rule, "the shared file") {
		return false
	}
	_, err := os.Stat(pt.shm.path)
	return errors.Is(err, os.ErrNotExist)
}

// begin waits for bsp_begin and starts the process, or lets it go when it
// is beyond the processes asked for.
func (pt *part) begin() error {
	f, err := pt.next("before bsp_begin")
	if err != nil {
		return err
	}
	if f.kind != kindBegin {
		return pt.p.fail("called a BSPlib function before bsp_begin (frame %d)", f.kind)
	}
	pt.nprocs = min(int(f.arg), pt.sub.Ranks)
	arg := uint32(0)
	if pt.sub.Rank >= pt.nprocs {
		pt.idle, arg = true, 1
	}
	var path []byte
	if pt.shm != nil && !pt.idle {
		path = []byte(pt.shm.path)
	}
	b := appendHeader(nil, kindStarted, arg, 0)
	b = append(b, byte(pt.nprocs), byte(pt.nprocs>>8), byte(pt.nprocs>>16), byte(pt.nprocs>>24))
	b = pt.appendResume(b)
	b = append(b, path...)
	binary.LittleEndian.PutUint64(b[8:], uint64(len(b)-frameHeader))
	return pt.write(b, "in bsp_begin")
}

func (pt *part) write(b []byte, while string) error {
	if _, err := pt.p.conn.Write(b); err != nil {
		return pt.p.gone(while)
	}
	return nil
}

// supersteps performs the program's supersteps until bsp_end.
func (pt *part) supersteps(ctx context.Context, c gridapp.Comm) error {
	host, _ := c.(gridapp.Host)
	last := time.Now()
	pt.stepping = true
	defer func() { pt.stepping = false }()
	for {
		while := fmt.Sprintf("in superstep %d, without calling bsp_end", pt.x.Superstep)
		f, err := pt.next(while)
		if err != nil {
			return err
		}
		if f.kind != kindSync {
			return pt.p.fail("sent frame %d %s, expected bsp_sync or bsp_end", f.kind, while)
		}
		fast := pt.fast()
		pt.stats.Add(fast)
		compute := time.Since(last) - fast.Wait
		end, snap := f.arg&1 == 1, f.arg&2 != 0
		st, err := parseStep(f.payload, end)
		if err != nil {
			return pt.p.fail("%v %s", err, while)
		}
		if err := pt.checkStep(st); err != nil {
			return err
		}
		in, err := pt.x.Exchange(ctx, st, pt.serve)
		if err != nil {
			return pt.named(err)
		}
		if pt.shm != nil && pt.x.Superstep == 1 {
			pt.shm.unlink() // every program has mapped it: it began
		}
		if pt.resumeAt > 0 && pt.x.Superstep == 1 {
			pt.x.Superstep = pt.resumeAt // the program restored its buffers
		}
		var pieces net.Buffers
		pt.frame, pieces = encodeDone(pt.frame, in)
		if _, err := pieces.WriteTo(pt.p.conn); err != nil {
			return pt.p.gone(while)
		}
		if snap {
			if err := pt.snapshot(while); err != nil {
				return err
			}
		}
		in.Stats.Compute = compute
		pt.stats.Add(in.Stats)
		// Supersteps ended in shared memory since the last barrier count
		// with this one: their computation is in compute.
		pt.profile.Add(1+fast.Supersteps, compute, max(fast.BytesOut, fast.BytesIn)+in.Stats.HMax)
		last = time.Now()
		c.Progress(pt.x.Superstep, 0)
		if host != nil {
			host.Usage(gridapp.Usage{Compute: pt.stats.Compute, Send: pt.stats.Comm, Wait: pt.stats.Wait})
		}
		if end {
			return nil
		}
	}
}

// named adds the program's name to a broken rule.
func (pt *part) named(err error) error {
	var re *bsp.RuleError
	if errors.As(err, &re) {
		return fmt.Errorf("bsp: program %s: %w", pt.p.name, re)
	}
	return err
}

// checkStep checks what the program's library should have: processes in
// range, tags of the tag size.
func (pt *part) checkStep(st *bsp.Step) error {
	for _, p := range st.Puts {
		if p.Pid >= pt.nprocs {
			return pt.p.fail("bsp_put to process %d of %d", p.Pid, pt.nprocs)
		}
	}
	for _, g := range st.Gets {
		if g.Pid >= pt.nprocs {
			return pt.p.fail("bsp_get from process %d of %d", g.Pid, pt.nprocs)
		}
	}
	for _, m := range st.Msgs {
		if m.Pid >= pt.nprocs {
			return pt.p.fail("bsp_send to process %d of %d", m.Pid, pt.nprocs)
		}
	}
	return nil
}

// serve asks the program for the data of the others' gets.
func (pt *part) serve(reqs []bsp.Get) ([][]byte, error) {
	pt.frame = encodeServe(pt.frame, reqs)
	if err := pt.write(pt.frame, "while serving gets"); err != nil {
		return nil, err
	}
	f, err := pt.next("while serving gets")
	if err != nil {
		return nil, err
	}
	want := 0
	for _, g := range reqs {
		want += g.Len
	}
	if f.kind != kindData || len(f.payload) != want {
		return nil, pt.p.fail("answered the gets with frame %d of %d bytes, want %d", f.kind, len(f.payload), want)
	}
	data := make([][]byte, len(reqs))
	b := append([]byte(nil), f.payload...)
	for i, g := range reqs {
		data[i], b = b[:g.Len:g.Len], b[g.Len:]
	}
	return data, nil
}

// exit waits for the program to end after bsp_end (or, beyond maxprocs,
// in bsp_begin) with status 0.
func (pt *part) exit() error {
	if pt.timeout > 0 {
		pt.p.conn.SetReadDeadline(time.Now().Add(pt.timeout))
	}
	f, _, err := readFrame(pt.p.in, nil)
	if err == nil {
		if f.kind == kindAbort {
			return pt.abort(f)
		}
		return pt.p.fail("called a BSPlib function after bsp_end (frame %d)", f.kind)
	}
	if how, ok := pt.p.status(); !ok {
		return pt.p.fail("%s after bsp_end%s", how, pt.p.out.lastLine())
	}
	return nil
}

// sanitize keeps text from a program safe for a terminal: control
// characters but newline and tab become '?'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f) {
			return r
		}
		return '?'
	}, strings.ToValidUTF8(s, "?"))
}
