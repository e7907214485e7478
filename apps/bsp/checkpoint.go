package bsp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// A process's checkpoint is the superstep that begins (u64) and the
// program's checkpoint buffers (bsp_checkpoint_reg) as bsp.c sent them
// inside the bsp_sync that ended the superstep before, after its
// communication.

// Checkpoint writes the process's checkpoint (gridapp.Checkpointer).
func (pt *part) Checkpoint(w io.Writer) error {
	if pt.snap == nil {
		return errors.New("bsp: the program registered no checkpoint buffers (bsp_checkpoint_reg)")
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(pt.snapAt))
	if _, err := w.Write(append(b, pt.snap...)); err != nil {
		return fmt.Errorf("bsp: program %s, process %d: checkpoint: %w", pt.p.name, pt.p.pid, err)
	}
	return nil
}

// Restore reads what Checkpoint wrote; the program gets it in bsp_begin's
// answer and restores its buffers at its first bsp_sync.
func (pt *part) Restore(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("bsp: program %s, process %d: restore: %w", pt.p.name, pt.p.pid, err)
	}
	if len(b) < 8 || binary.LittleEndian.Uint64(b) == 0 || binary.LittleEndian.Uint64(b) > 1<<40 {
		return fmt.Errorf("bsp: program %s, process %d: restore: a checkpoint of %d bytes: %w", pt.p.name, pt.p.pid, len(b), gridapp.ErrState)
	}
	pt.resumeAt, pt.resumeSnap = int(binary.LittleEndian.Uint64(b)), b[8:]
	return nil
}

// checkpointEvery is the run's checkpoint interval, for the program.
func (pt *part) checkpointEvery() uint32 {
	if cc, ok := pt.c.(gridapp.Checkpoints); ok && cc.CheckpointEvery() > 0 {
		return uint32(min(cc.CheckpointEvery(), 1<<31))
	}
	return 0
}

// appendResume appends what bsp_begin's answer says of checkpoints: the
// interval, the superstep to resume at (0: none) and the buffers' bytes.
func (pt *part) appendResume(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, pt.checkpointEvery())
	b = le.AppendUint64(b, uint64(pt.resumeAt))
	b = le.AppendUint64(b, uint64(len(pt.resumeSnap)))
	return append(b, pt.resumeSnap...)
}

// snapshot reads the program's checkpoint buffers after a superstep that
// ends at a checkpoint and offers the engine the checkpoint.
func (pt *part) snapshot(while string) error {
	f, err := pt.next(while)
	if err != nil {
		return err
	}
	if f.kind != kindData {
		return pt.p.fail("sent frame %d %s, expected its checkpoint buffers", f.kind, while)
	}
	pt.snap, pt.snapAt = append(pt.snap[:0], f.payload...), pt.x.Superstep
	if cc, ok := pt.c.(gridapp.Checkpoints); ok {
		cc.Checkpoint(pt.x.Superstep)
	}
	return nil
}
