package bsp

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gridtui/gridtui/internal/wirereader"
)

// The superstep message from process s to process d (little-endian):
//
//	magic u32 "BSP1" | kind u8 (1 sync, 2 end) | 3 zero bytes
//	superstep u32 | nprocs u32 | pushes u32 | pops u32 | tagsize u32 (the next superstep's)
//	tag u32 (this superstep's tag size, of the messages below)
//	puts u32 | gets u32 | msgs u32
//	pops × (id u32)
//	puts × (reg u32, off u64, len u32, data)
//	gets × (reg u32, off u64, len u32)
//	msgs × (len u32, tag (tagsize bytes), payload (len bytes))
//
// The reply of d to s, when s asked for gets, is the data of s's gets in
// their order, concatenated.
const (
	magic     = 0x31505342 // "BSP1"
	headerLen = 44
)

// Kinds of a superstep message: the process is in bsp_sync or in bsp_end.
const (
	kindSync = 1
	kindEnd  = 2
)

var errShort = errors.New("bsp: truncated superstep message")

// Put is a bsp_put: Len bytes of Data to offset Off of registration Reg on
// process Pid (the destination when sent, the source when received).
type Put struct {
	Pid  int
	Reg  int
	Off  int
	Data []byte
}

// Get is a bsp_get: Len bytes at offset Off of registration Reg on process
// Pid (the source when asked, the requester when served).
type Get struct {
	Pid, Reg, Off, Len int
}

// Message is a BSMP message (bsp_send): its tag and payload, from or to
// process Pid.
type Message struct {
	Pid     int
	Tag     []byte
	Payload []byte
}

// Step is what one process brings to a superstep's barrier.
type Step struct {
	End     bool  // bsp_end rather than bsp_sync
	Pushes  int   // bsp_push_reg calls in this superstep
	Pops    []int // the registrations bsp_pop_reg removed, in call order
	TagSize int   // the tag size of the next superstep (bsp_set_tagsize)
	Tag     int   // the tag size of this superstep: of every tag in Msgs
	Puts    []Put
	Gets    []Get
	Msgs    []Message
}

// header is the fixed part of a superstep message.
type header struct {
	kind                            uint8
	superstep, nprocs, pushes, pops uint32
	tagsize, puts, gets, msgs, tag  uint32
}

func (h header) append(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, magic)
	b = append(b, h.kind, 0, 0, 0)
	for _, v := range []uint32{h.superstep, h.nprocs, h.pushes, h.pops, h.tagsize, h.puts, h.gets, h.msgs, h.tag} {
		b = le.AppendUint32(b, v)
	}
	return b
}

func decodeHeader(b []byte) (header, error) {
	if len(b) < headerLen {
		return header{}, errShort
	}
	le := binary.LittleEndian
	if le.Uint32(b) != magic {
		return header{}, fmt.Errorf("bsp: superstep message: bad magic %#x", le.Uint32(b))
	}
	h := header{kind: b[4]}
	if h.kind != kindSync && h.kind != kindEnd || b[5]|b[6]|b[7] != 0 {
		return header{}, fmt.Errorf("bsp: superstep message: bad kind %d", b[4])
	}
	v := []*uint32{&h.superstep, &h.nprocs, &h.pushes, &h.pops, &h.tagsize, &h.puts, &h.gets, &h.msgs, &h.tag}
	for i, p := range v {
		*p = le.Uint32(b[8+4*i:])
	}
	return h, nil
}

// parsed is a decoded superstep message from one process.
type parsed struct {
	header
	pops []int
	puts []Put
	gets []Get
	msgs []Message
}

// decodeStep decodes the message b from process src; its slices alias b.
func decodeStep(b []byte, src int) (parsed, error) {
	h, err := decodeHeader(b)
	if err != nil {
		return parsed{}, err
	}
	p := parsed{header: h}
	r := wirereader.Reader{B: b[headerLen:]}
	// Every entry takes at least 4 bytes: counts beyond the message are lies.
	if int(h.pops)+int(h.puts)+int(h.gets)+int(h.msgs) > len(r.B)/4 {
		return p, fmt.Errorf("%w from process %d: %d entries in %d bytes", errShort, src, h.pops+h.puts+h.gets+h.msgs, len(r.B))
	}
	for range h.pops {
		p.pops = append(p.pops, r.U32())
	}
	for range h.puts {
		reg, off, n := r.U32(), r.U64(), r.U32()
		p.puts = append(p.puts, Put{Pid: src, Reg: reg, Off: off, Data: r.Bytes(n)})
	}
	for range h.gets {
		reg, off, n := r.U32(), r.U64(), r.U32()
		p.gets = append(p.gets, Get{Pid: src, Reg: reg, Off: off, Len: n})
	}
	for range h.msgs {
		n := r.U32()
		tag := r.Bytes(int(h.tag))
		p.msgs = append(p.msgs, Message{Pid: src, Tag: tag, Payload: r.Bytes(n)})
	}
	if r.Bad || len(r.B) != 0 {
		return p, fmt.Errorf("%w from process %d", errShort, src)
	}
	return p, nil
}

// encodeStep appends the part of st addressed to process dst.
func encodeStep(b []byte, st *Step, superstep, nprocs, dst int) []byte {
	return encodeFor(b, st, bucket(st, nprocs)[dst], superstep, nprocs)
}

// perDest holds the indices of a step's puts, gets and messages for one
// destination.
type perDest struct{ puts, gets, msgs []int }

// bucket sorts a step's entries by destination in one pass (a process
// beyond nprocs gets none).
func bucket(st *Step, nprocs int) []perDest {
	d := make([]perDest, nprocs)
	for i, p := range st.Puts {
		if p.Pid >= 0 && p.Pid < nprocs {
			d[p.Pid].puts = append(d[p.Pid].puts, i)
		}
	}
	for i, g := range st.Gets {
		if g.Pid >= 0 && g.Pid < nprocs {
			d[g.Pid].gets = append(d[g.Pid].gets, i)
		}
	}
	for i, m := range st.Msgs {
		if m.Pid >= 0 && m.Pid < nprocs {
			d[m.Pid].msgs = append(d[m.Pid].msgs, i)
		}
	}
	return d
}

// encodeFor appends the message of st's entries in pd.
func encodeFor(b []byte, st *Step, pd perDest, superstep, nprocs int) []byte {
	h := header{kind: kindSync, superstep: uint32(superstep), nprocs: uint32(nprocs), pushes: uint32(st.Pushes),
		pops: uint32(len(st.Pops)), tagsize: uint32(st.TagSize), tag: uint32(st.Tag),
		puts: uint32(len(pd.puts)), gets: uint32(len(pd.gets)), msgs: uint32(len(pd.msgs))}
	if st.End {
		h.kind = kindEnd
	}
	b = h.append(b)
	le := binary.LittleEndian
	for _, id := range st.Pops {
		b = le.AppendUint32(b, uint32(id))
	}
	for _, i := range pd.puts {
		p := &st.Puts[i]
		b = le.AppendUint32(b, uint32(p.Reg))
		b = le.AppendUint64(b, uint64(p.Off))
		b = le.AppendUint32(b, uint32(len(p.Data)))
		b = append(b, p.Data...)
	}
	for _, i := range pd.gets {
		g := &st.Gets[i]
		b = le.AppendUint32(b, uint32(g.Reg))
		b = le.AppendUint64(b, uint64(g.Off))
		b = le.AppendUint32(b, uint32(g.Len))
	}
	for _, i := range pd.msgs {
		m := &st.Msgs[i]
		b = le.AppendUint32(b, uint32(len(m.Payload)))
		b = append(b, m.Tag...)
		b = append(b, m.Payload...)
	}
	return b
}
