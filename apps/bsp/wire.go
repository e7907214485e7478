package bsp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"

	"github.com/gridtui/gridtui/bsp"
	"github.com/gridtui/gridtui/internal/wirereader"
)

// The frames between a worker and its program (bsplib/bsp.c is the other
// side): kind u32, arg u32, payload length u64, little-endian, then the
// payload.
const (
	frameHeader = 16
	// maxFrame bounds a frame from the program: a superstep of 16 GiB.
	maxFrame = 1 << 34
)

// Frame kinds: the program's, then the worker's.
const (
	kindBegin   = 1  // arg: maxprocs
	kindSync    = 2  // arg: 1 for bsp_end; payload: the superstep (parseStep)
	kindData    = 3  // the data of the gets a kindServe asked for
	kindAbort   = 4  // arg 0: bsp_abort, payload its text; arg p+1: process p broke a rule, payload "call\nrule"
	kindStarted = 16 // arg 0: take part, payload nprocs u32; arg 1: exit
	kindServe   = 17 // payload: count u32, then (pid u32, reg u32, off u64, len u32) per get
	kindDone    = 18 // payload: the gets' data, the puts (count, then src, reg, off, len, data), the messages (count, then src, len, tag, payload)
)

type frame struct {
	kind, arg uint32
	payload   []byte
}

var errFrame = errors.New("bad frame")

// readFrame reads one frame from the program into buf (grown as needed).
func readFrame(r io.Reader, buf []byte) (frame, []byte, error) {
	var h [frameHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, buf, err
	}
	le := binary.LittleEndian
	f := frame{kind: le.Uint32(h[:]), arg: le.Uint32(h[4:])}
	n := le.Uint64(h[8:])
	if f.kind < kindBegin || f.kind > kindAbort || n > maxFrame {
		return f, buf, fmt.Errorf("%w: kind %d, %d bytes", errFrame, f.kind, n)
	}
	// Grow the buffer as the payload arrives: a header that announces
	// gigabytes costs nothing until they come.
	buf = buf[:0]
	for uint64(len(buf)) < n {
		k := int(min(n-uint64(len(buf)), 1<<20))
		buf = slices.Grow(buf, k)
		if _, err := io.ReadFull(r, buf[len(buf):len(buf)+k]); err != nil {
			return f, buf, err
		}
		buf = buf[:len(buf)+k]
	}
	f.payload = buf
	return f, buf, nil
}

// appendHeader appends a frame header.
func appendHeader(b []byte, kind, arg uint32, n int) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, kind)
	b = le.AppendUint32(b, arg)
	return le.AppendUint64(b, uint64(n))
}

// parseStep decodes the program's superstep: pushes, pops, the next and
// the current tag size, the counts of puts, gets and messages (u32 each),
// the popped registrations, the gets, the messages, then the puts (last,
// so that bsp.c writes their data without a copy). Slices alias b.
func parseStep(b []byte, end bool) (*bsp.Step, error) {
	r := wirereader.Reader{B: b}
	st := &bsp.Step{End: end}
	st.Pushes = r.U32()
	pops := r.U32()
	st.TagSize, st.Tag = r.U32(), r.U32()
	puts, gets, msgs := r.U32(), r.U32(), r.U32()
	if r.Bad || pops+puts+gets+msgs > len(r.B)/4 {
		return nil, fmt.Errorf("%w: superstep of %d bytes", errFrame, len(b))
	}
	for range pops {
		st.Pops = append(st.Pops, r.U32())
	}
	for range gets {
		pid, reg, off, n := r.U32(), r.U32(), r.U64(), r.U32()
		st.Gets = append(st.Gets, bsp.Get{Pid: pid, Reg: reg, Off: off, Len: n})
	}
	for range msgs {
		pid, n := r.U32(), r.U32()
		tag := r.Bytes(st.Tag)
		st.Msgs = append(st.Msgs, bsp.Message{Pid: pid, Tag: tag, Payload: r.Bytes(n)})
	}
	for range puts {
		pid, reg, off, n := r.U32(), r.U32(), r.U64(), r.U32()
		st.Puts = append(st.Puts, bsp.Put{Pid: pid, Reg: reg, Off: off, Data: r.Bytes(n)})
	}
	if r.Bad || len(r.B) != 0 {
		return nil, fmt.Errorf("%w: superstep of %d bytes", errFrame, len(b))
	}
	return st, nil
}

// encodeServe is the kindServe frame for the gets of other processes.
func encodeServe(b []byte, reqs []bsp.Get) []byte {
	n := 4 + 20*len(reqs)
	b = appendHeader(b[:0], kindServe, 0, n)
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(len(reqs)))
	for _, g := range reqs {
		b = le.AppendUint32(b, uint32(g.Pid))
		b = le.AppendUint32(b, uint32(g.Reg))
		b = le.AppendUint64(b, uint64(g.Off))
		b = le.AppendUint32(b, uint32(g.Len))
	}
	return b
}

// encodeDone is the kindDone frame of what the superstep brought, as
// pieces for one writev: the small fields are gathered in meta, the data of
// large puts and gets is not copied.
func encodeDone(meta []byte, in *bsp.Incoming) ([]byte, net.Buffers) {
	n := 8
	for _, d := range in.GetData {
		n += len(d)
	}
	for _, p := range in.Puts {
		n += 20 + len(p.Data)
	}
	for _, m := range in.Msgs {
		n += 8 + len(m.Tag) + len(m.Payload)
	}
	var out net.Buffers
	meta = appendHeader(meta[:0], kindDone, 0, n)
	start := 0
	// data appends d to the frame: copied into meta when small, else a
	// piece of its own.
	data := func(d []byte) {
		if len(d) < 4096 {
			meta = append(meta, d...)
			return
		}
		out = append(out, meta[start:len(meta):len(meta)], d)
		start = len(meta)
	}
	for _, d := range in.GetData {
		data(d)
	}
	le := binary.LittleEndian
	meta = le.AppendUint32(meta, uint32(len(in.Puts)))
	for _, p := range in.Puts {
		meta = le.AppendUint32(meta, uint32(p.Pid))
		meta = le.AppendUint32(meta, uint32(p.Reg))
		meta = le.AppendUint64(meta, uint64(p.Off))
		meta = le.AppendUint32(meta, uint32(len(p.Data)))
		data(p.Data)
	}
	meta = le.AppendUint32(meta, uint32(len(in.Msgs)))
	for _, m := range in.Msgs {
		meta = le.AppendUint32(meta, uint32(m.Pid))
		meta = le.AppendUint32(meta, uint32(len(m.Payload)))
		meta = append(meta, m.Tag...)
		data(m.Payload)
	}
	return meta, append(out, meta[start:])
}
