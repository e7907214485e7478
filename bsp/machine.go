package bsp

import (
	"context"
	"fmt"
	"time"
	"unsafe"
)

// Reg is a registration (bsp_push_reg): the same number names the same
// registration on every process, as registrations are made in the same
// order everywhere.
type Reg int

// reg is a registered area of this process.
type reg struct {
	mem     []byte
	pending bool // pushed in this superstep: usable from the next one
	popped  bool
}

// Machine is one process of a BSP computation written in Go: BSPlib's
// DRMA and BSMP on []byte (and typed slices: PushSlice, PutSlice,
// GetSlice), one barrier per superstep (Sync). Its methods are not safe
// for concurrent use; each process owns its Machine.
type Machine struct {
	x       Exchanger
	regs    []reg
	step    Step
	getDst  [][]byte
	queue   []Message
	tagsize int // of the current superstep
	ended   bool
	last    time.Time
	stats   Stats
	profile Profile // the supersteps, for prediction
	// Checkpoint, when set, is called after every superstep's barrier
	// with the number of the superstep that begins: the place where a
	// checkpoint of the process's state is consistent everywhere.
	Checkpoint func(superstep int) error
	onSync     func()               // the engine's telemetry, after each barrier
	links      func(pid int) string // the network of the link to pid
	save       func() ([]byte, error)
	restored   []byte // the state a restarted run resumes from, or nil
}

// New returns process pid of nprocs, communicating over t.
func New(t Transport, pid, nprocs int) *Machine {
	return &Machine{x: Exchanger{T: t, Pid: pid, NProcs: nprocs}, last: time.Now()}
}

// SaveState sets what this process saves at the checkpoints the engine
// takes at superstep boundaries (every checkpoint_every supersteps of the
// job's resilience settings): the state its program resumes from at the
// superstep that begins, the contents of its registered areas included.
// save is called right after the barrier, inside Sync, so it says where
// the program stands once that Sync has returned. A program that sets it
// survives a lost process: every process starts its SPMD function again,
// Restored gives the state and superstep, and the program registers its
// areas again (their Sync counts on from that superstep) and goes on.
func (m *Machine) SaveState(save func() ([]byte, error)) { m.save = save }

// Restored returns the superstep a run that restarted from a checkpoint
// resumes at and the state SaveState gave there; ok is false on a fresh
// start.
func (m *Machine) Restored() (superstep int, state []byte, ok bool) {
	return m.x.Superstep, m.restored, m.restored != nil
}

// Pid returns this process's number, 0 … NProcs()-1 (bsp_pid).
func (m *Machine) Pid() int { return m.x.Pid }

// NProcs returns the number of processes (bsp_nprocs).
func (m *Machine) NProcs() int { return m.x.NProcs }

// Superstep returns the number of the current superstep, from 0.
func (m *Machine) Superstep() int { return m.x.Superstep }

// Stats returns the process's totals so far.
func (m *Machine) Stats() Stats { return m.stats }

func (m *Machine) rule(call, format string, a ...any) error {
	return &RuleError{Pid: m.x.Pid, Call: call, Rule: fmt.Sprintf(format, a...)}
}

// PushReg registers mem for the DRMA of the other processes
// (bsp_push_reg); the registration takes effect at the next Sync. Every
// process must register in the same order.
func (m *Machine) PushReg(mem []byte) Reg {
	m.regs = append(m.regs, reg{mem: mem, pending: true})
	m.step.Pushes++
	return Reg(len(m.regs) - 1)
}

// PopReg removes a registration at the next Sync (bsp_pop_reg).
func (m *Machine) PopReg(r Reg) error {
	if err := m.usable("bsp_pop_reg", r); err != nil {
		return err
	}
	m.regs[r].popped = true
	m.step.Pops = append(m.step.Pops, int(r))
	return nil
}

// usable checks that r is a registration in effect in this superstep.
func (m *Machine) usable(call string, r Reg) error {
	switch {
	case m.ended:
		return m.rule(call, "called after bsp_end")
	case r < 0 || int(r) >= len(m.regs):
		return m.rule(call, "registration %d does not exist", r)
	case m.regs[r].pending:
		return m.rule(call, "registration %d was pushed in this superstep; it takes effect at the next bsp_sync", r)
	case m.regs[r].popped && !contains(m.step.Pops, int(r)):
		return m.rule(call, "registration %d was removed by bsp_pop_reg", r)
	}
	return nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (m *Machine) checkPid(call string, pid int) error {
	if pid < 0 || pid >= m.x.NProcs {
		return m.rule(call, "process %d does not exist (bsp_nprocs() = %d)", pid, m.x.NProcs)
	}
	return nil
}

// Put copies src now and writes it at offset off of registration dst on
// process pid at the end of the superstep (bsp_put).
func (m *Machine) Put(pid int, src []byte, dst Reg, off int) error {
	if err := m.checkPid("bsp_put", pid); err != nil {
		return err
	}
	if err := m.usable("bsp_put", dst); err != nil {
		return err
	}
	if off < 0 {
		return m.rule("bsp_put", "negative offset %d", off)
	}
	m.step.Puts = append(m.step.Puts, Put{Pid: pid, Reg: int(dst), Off: off, Data: append([]byte(nil), src...)})
	return nil
}

// Get reads len(dst) bytes at offset off of registration src on process
// pid into dst at the end of the superstep (bsp_get): the value before any
// put of the superstep.
func (m *Machine) Get(pid int, src Reg, off int, dst []byte) error {
	if err := m.checkPid("bsp_get", pid); err != nil {
		return err
	}
	if err := m.usable("bsp_get", src); err != nil {
		return err
	}
	if off < 0 {
		return m.rule("bsp_get", "negative offset %d", off)
	}
	m.step.Gets = append(m.step.Gets, Get{Pid: pid, Reg: int(src), Off: off, Len: len(dst)})
	m.getDst = append(m.getDst, dst)
	return nil
}

// SetTagSize sets the tag size of BSMP messages from the next superstep
// on and returns the previous one (bsp_set_tagsize).
func (m *Machine) SetTagSize(n int) (int, error) {
	if n < 0 {
		return m.step.TagSize, m.rule("bsp_set_tagsize", "negative tag size %d", n)
	}
	prev := m.step.TagSize
	m.step.TagSize = n
	return prev, nil
}

// Send sends a message with tag (of the tag size) and payload to process
// pid's queue of the next superstep (bsp_send).
func (m *Machine) Send(pid int, tag, payload []byte) error {
	if err := m.checkPid("bsp_send", pid); err != nil {
		return err
	}
	if len(tag) != m.tagsize {
		return m.rule("bsp_send", "tag of %d bytes, the tag size is %d", len(tag), m.tagsize)
	}
	m.step.Msgs = append(m.step.Msgs, Message{Pid: pid, Tag: append([]byte(nil), tag...), Payload: append([]byte(nil), payload...)})
	return nil
}

// QSize returns the number of messages in the queue and their payloads'
// total bytes (bsp_qsize).
func (m *Machine) QSize() (messages, bytes int) {
	for _, q := range m.queue {
		bytes += len(q.Payload)
	}
	return len(m.queue), bytes
}

// Next returns the first message of the queue without removing it, false
// when it is empty (bsp_get_tag).
func (m *Machine) Next() (Message, bool) {
	if len(m.queue) == 0 {
		return Message{}, false
	}
	return m.queue[0], true
}

// Move removes the first message of the queue and returns it (bsp_move);
// an empty queue is an error.
func (m *Machine) Move() (Message, error) {
	if len(m.queue) == 0 {
		return Message{}, m.rule("bsp_move", "the message queue is empty")
	}
	q := m.queue[0]
	m.queue = m.queue[1:]
	return q, nil
}

// Sync ends the superstep (bsp_sync): the barrier, then the gets, puts,
// messages, registrations and tag size of the superstep take effect.
func (m *Machine) Sync(ctx context.Context) error { return m.sync(ctx, false) }

// End ends the computation (bsp_end), a last barrier.
func (m *Machine) End(ctx context.Context) error { return m.sync(ctx, true) }

func (m *Machine) sync(ctx context.Context, end bool) error {
	if m.ended {
		return m.rule("bsp_sync", "called after bsp_end")
	}
	compute := time.Since(m.last)
	m.step.End = end
	m.step.Tag = m.tagsize
	in, err := m.x.Exchange(ctx, &m.step, m.serve)
	if err != nil {
		return err
	}
	for i, d := range in.GetData {
		copy(m.getDst[i], d)
	}
	for _, p := range in.Puts {
		if err := m.apply(p); err != nil {
			return err
		}
	}
	m.queue = append(m.queue[:0], in.Msgs...)
	for i := range m.regs {
		m.regs[i].pending = false
	}
	for _, id := range m.step.Pops {
		m.regs[id].mem = nil
	}
	m.tagsize = m.step.TagSize
	m.step = Step{TagSize: m.tagsize}
	m.getDst = m.getDst[:0]
	in.Stats.Compute = compute
	m.stats.Add(in.Stats)
	m.profile.Add(1, compute, in.Stats.HMax)
	m.ended = end
	m.last = time.Now()
	if m.onSync != nil {
		m.onSync()
	}
	if m.Checkpoint != nil && !end {
		return m.Checkpoint(m.x.Superstep)
	}
	return nil
}

// area returns the registered bytes a put or get of process pid touches.
func (m *Machine) area(call string, pid, r, off, n int) ([]byte, error) {
	if r < 0 || r >= len(m.regs) || m.regs[r].mem == nil && m.regs[r].popped {
		return nil, &RuleError{Pid: pid, Call: call, Rule: fmt.Sprintf("registration %d does not exist on process %d", r, m.x.Pid)}
	}
	mem := m.regs[r].mem
	if off < 0 || n < 0 || off+n > len(mem) {
		return nil, &RuleError{Pid: pid, Call: call, Rule: fmt.Sprintf("bytes %d…%d are outside the %d bytes process %d registered", off, off+n, len(mem), m.x.Pid)}
	}
	return mem[off : off+n], nil
}

func (m *Machine) serve(reqs []Get) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	for i, g := range reqs {
		b, err := m.area("bsp_get", g.Pid, g.Reg, g.Off, g.Len)
		if err != nil {
			return nil, err
		}
		out[i] = append([]byte(nil), b...)
	}
	return out, nil
}

func (m *Machine) apply(p Put) error {
	b, err := m.area("bsp_put", p.Pid, p.Reg, p.Off, len(p.Data))
	if err != nil {
		return err
	}
	copy(b, p.Data)
	return nil
}

// Bytes views a slice of fixed-size values (numbers, structs of numbers)
// as its bytes, without copying.
func Bytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// PushSlice registers a typed slice (bsp_push_reg).
func PushSlice[T any](m *Machine, s []T) Reg { return m.PushReg(Bytes(s)) }

// PutSlice puts src at element index i of registration dst on process pid.
func PutSlice[T any](m *Machine, pid int, src []T, dst Reg, i int) error {
	var z T
	return m.Put(pid, Bytes(src), dst, i*int(unsafe.Sizeof(z)))
}

// GetSlice gets len(dst) elements from element index i of registration src
// on process pid.
func GetSlice[T any](m *Machine, pid int, src Reg, i int, dst []T) error {
	var z T
	return m.Get(pid, src, i*int(unsafe.Sizeof(z)), Bytes(dst))
}
