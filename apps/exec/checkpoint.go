package exec

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// A program that registers its state with GRID_CheckpointRegister
// (link = "window") tells its worker how many bytes before its first
// receive (kindCkReg); its part is then a ckPart, a gridapp.Checkpointer.
// The engine asks for a checkpoint right after a Sweep, while the program
// waits in GRID_Iterate: the worker answers with statusCheckpoint, the
// program sends its buffers (kindCkData) and waits again. A checkpoint is
// the part's iteration count (u64), the window's length (u64) and bytes —
// every neighbour's outgoing values and halo, which the next exchange
// sends and an asynchronous link keeps — then the program's buffers. A
// restarted program gets its buffers back (statusRestore) before the go
// of its first receive, the window already holding the checkpoint's.

// ckPart is the part of a program that registered its state.
type ckPart struct{ *part }

// registered reads GRID_CheckpointRegister's total (a kindCkReg frame).
func (pt *part) registered(h header) error {
	if h.len != 8 || pt.iter > 0 || pt.stash != nil {
		return pt.p.fail("sent GRID_CheckpointRegister's frame (%d bytes) during the loop (does it link this gridtui's gridhpc.c?)", h.len)
	}
	b := pt.args(8)
	if _, err := io.ReadFull(pt.p.in, b); err != nil {
		return pt.readErr(err, "in GRID_CheckpointRegister")
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxPayload {
		return pt.p.fail("registered %d bytes of state with GRID_CheckpointRegister, at most %d", n, uint64(maxPayload))
	}
	pt.ckBytes = n
	return nil
}

// Checkpoint asks the program, waiting in GRID_Iterate, for its registered
// buffers and writes the part's checkpoint (gridapp.Checkpointer). A
// program that does not answer within the job's timeout fails the run, as
// it would at any other call.
func (c ckPart) Checkpoint(w io.Writer) error { return c.checkpoint(w, c.timeout) }

// CheckpointWithin is Checkpoint with the wait for the program bounded by d
// (gridapp.BoundedCheckpointer: the abort of an asynchronous attempt). Past
// d the part is spent (its program got the request and may still answer
// it): only Close remains, which the engine calls next.
func (c ckPart) CheckpointWithin(w io.Writer, d time.Duration) error {
	err := c.checkpoint(w, min(d, c.timeout))
	if err != nil {
		c.waiting, c.stopped = false, true
	}
	return err
}

// checkpoint is Checkpoint, the program's answer awaited for up to wait.
func (c ckPart) checkpoint(w io.Writer, wait time.Duration) error {
	pt := c.part
	if !pt.waiting || pt.stopped {
		return fmt.Errorf("exec: program %s: a checkpoint asked outside an iteration boundary", pt.p.name)
	}
	pt.p.conn.SetReadDeadline(time.Now().Add(wait))
	if err := pt.reply(statusCheckpoint, nil); err != nil {
		return err
	}
	h, err := readHeader(pt.p.in, pt.hdr[:])
	if err != nil {
		return pt.p.readErr(err, wait, "while it sent its checkpoint")
	}
	if h.kind == kindAbort {
		return pt.abort(h)
	}
	if h.kind != kindCkData || h.len != pt.ckBytes {
		return pt.p.fail("answered a checkpoint with %s of %d bytes, want its %d registered bytes", kindName(h.kind), h.len, pt.ckBytes)
	}
	le := binary.LittleEndian
	var head [16]byte
	le.PutUint64(head[:], uint64(pt.iter))
	le.PutUint64(head[8:], uint64(len(pt.win.mem)))
	if _, err := w.Write(head[:]); err != nil {
		return fmt.Errorf("exec: program %s: checkpoint: %w", pt.p.name, err)
	}
	if _, err := w.Write(pt.win.mem); err != nil {
		return fmt.Errorf("exec: program %s: checkpoint: %w", pt.p.name, err)
	}
	if _, err := io.CopyN(w, pt.p.in, int64(h.len)); err != nil {
		return pt.p.readErr(err, wait, "while it sent its checkpoint")
	}
	return nil
}

// Restore reads what Checkpoint wrote into the part of a program just
// started: the window now, the program's buffers at its first receive.
func (c ckPart) Restore(r io.Reader) error {
	pt := c.part
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("exec: program %s: restore: %w", pt.p.name, err)
	}
	le := binary.LittleEndian
	if len(b) < 16 {
		return fmt.Errorf("exec: program %s: restore: a checkpoint of %d bytes: %w", pt.p.name, len(b), gridapp.ErrState)
	}
	iter, nw := le.Uint64(b), le.Uint64(b[8:])
	if nw != uint64(len(pt.win.mem)) || uint64(len(b)) != 16+nw+pt.ckBytes || iter > 1<<40 {
		return fmt.Errorf("exec: program %s: restore: a checkpoint of %d bytes (window %d, iteration %d), the program's window holds %d and it registered %d: %w",
			pt.p.name, len(b), nw, iter, len(pt.win.mem), pt.ckBytes, gridapp.ErrState)
	}
	if pt.stash == nil || pt.stash.h.kind != kindReceive || pt.iter > 0 {
		return fmt.Errorf("exec: program %s: restore: the program is past its first receive", pt.p.name)
	}
	copy(pt.win.mem, b[16:16+nw])
	pt.iter = int(iter)
	pt.resume = append(le.AppendUint64(nil, iter), b[16+nw:]...)
	return nil
}

// restored hands a restarted program its registered buffers, once, before
// the answer to its first receive.
func (pt *part) restored() error {
	if pt.resume == nil {
		return nil
	}
	b := pt.resume
	pt.resume = nil
	return pt.reply(statusRestore, b)
}
