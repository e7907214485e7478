package bsp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/wirereader"
)

// resume is what a process restored from a checkpoint starts with.
type resume struct {
	superstep, tagsize int
	queue              []Message
	state              []byte
}

// Checkpoint writes the process's checkpoint (gridapp.Checkpointer), at a
// superstep's barrier: the superstep that begins, the tag size, the
// message queue, then the state the program's SaveState gives.
func (pt *goPart) Checkpoint(w io.Writer) error {
	m := pt.m
	if m == nil || m.save == nil {
		return errors.New("bsp: the program saves no state (Machine.SaveState)")
	}
	state, err := m.save()
	if err != nil {
		return fmt.Errorf("bsp: process %d: save state: %w", m.Pid(), err)
	}
	le := binary.LittleEndian
	b := le.AppendUint64(nil, uint64(m.x.Superstep))
	b = le.AppendUint64(b, uint64(m.tagsize))
	b = le.AppendUint32(b, uint32(len(m.queue)))
	for _, q := range m.queue {
		b = le.AppendUint32(b, uint32(q.Pid))
		b = le.AppendUint32(b, uint32(len(q.Tag)))
		b = append(b, q.Tag...)
		b = le.AppendUint32(b, uint32(len(q.Payload)))
		b = append(b, q.Payload...)
	}
	b = le.AppendUint64(b, uint64(len(state)))
	b = append(b, state...)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("bsp: process %d: checkpoint: %w", m.Pid(), err)
	}
	return nil
}

// Restore reads what Checkpoint wrote; Calculate resumes from it.
func (pt *goPart) Restore(rd io.Reader) error {
	b, err := io.ReadAll(rd)
	if err != nil {
		return fmt.Errorf("bsp: process %d: restore: %w", pt.sub.Rank, err)
	}
	r := wirereader.Reader{B: b}
	res := &resume{superstep: r.U64(), tagsize: r.U64()}
	n := r.U32()
	if n > len(r.B)/12 {
		return fmt.Errorf("bsp: process %d: restore: %w", pt.sub.Rank, gridapp.ErrState)
	}
	for range n {
		pid, tag := r.U32(), r.Bytes(r.U32())
		res.queue = append(res.queue, Message{Pid: pid, Tag: tag, Payload: r.Bytes(r.U32())})
	}
	res.state = r.Bytes(r.U64())
	if r.Bad || len(r.B) != 0 || res.state == nil {
		return fmt.Errorf("bsp: process %d: restore: a checkpoint of %d bytes: %w", pt.sub.Rank, len(b), gridapp.ErrState)
	}
	pt.resume = res
	return nil
}

// restoreInto starts m where the checkpoint left its process.
func (res *resume) restoreInto(m *Machine) {
	m.x.Superstep = res.superstep
	m.tagsize = res.tagsize
	m.step.TagSize = res.tagsize
	m.queue = res.queue
	m.restored = res.state
}

// checkpointHook makes m offer the engine a checkpoint after each barrier
// once the program saves its state.
func checkpointHook(m *Machine, c gridapp.Comm) {
	cc, ok := c.(gridapp.Checkpoints)
	if !ok {
		return
	}
	m.Checkpoint = func(superstep int) error {
		if m.save != nil {
			cc.Checkpoint(superstep)
		}
		return nil
	}
}
