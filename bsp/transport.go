package bsp

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Local is a set of in-memory transports between the processes of one Go
// program (tests, and a BSP computation on the cores of one node).
type Local struct {
	ch [][]chan []byte // ch[src][dst]
}

// NewLocal returns the transports of n processes.
func NewLocal(n int) *Local {
	l := &Local{ch: make([][]chan []byte, n)}
	for s := range l.ch {
		l.ch[s] = make([]chan []byte, n)
		for d := range l.ch[s] {
			// A pair holds at most a superstep message, a get reply and
			// the next superstep's message in flight.
			l.ch[s][d] = make(chan []byte, 4)
		}
	}
	return l
}

// Process returns process pid's transport.
func (l *Local) Process(pid int) Transport { return localTransport{l, pid} }

type localTransport struct {
	l   *Local
	pid int
}

func (t localTransport) Send(ctx context.Context, pid int, b []byte) error {
	select {
	case t.l.ch[t.pid][pid] <- append([]byte(nil), b...):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t localTransport) Receive(ctx context.Context, pid int, _ []byte) ([]byte, error) {
	select {
	case b := <-t.l.ch[pid][t.pid]:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// inline is the largest message sent in one RMNP message with its length;
// a longer one is its length, then chunks of at most chunk bytes.
const (
	inline = 4096 - 8
	chunk  = 16 << 20
)

// commTransport carries superstep messages on a part's links of the
// low-level model (gridapp.Comm): RMNP, synchronous DATA, on the network
// Algorithm 1 chose for each pair. The Comm moves float64s: bytes travel
// as their little-endian image, with their length in front.
type commTransport struct {
	c    gridapp.Comm
	nb   map[int]int // process → neighbour index
	head []float64
}

// CommTransport returns the transport of process pid over the links of a
// part whose neighbours are every other process (neighbours in the order of
// the part's Subtask.Neighbours). Every link must be synchronous.
func CommTransport(c gridapp.Comm, neighbours []int) (Transport, error) {
	t := &commTransport{c: c, nb: map[int]int{}, head: make([]float64, (inline+8)/8)}
	for i, pid := range neighbours {
		if c.Mode(i) != gridapp.Sync {
			return nil, fmt.Errorf("bsp: the link to process %d is asynchronous: BSP needs scheme = \"sync\"", pid)
		}
		t.nb[pid] = i
	}
	return t, nil
}

func (t *commTransport) index(pid int) (int, error) {
	i, ok := t.nb[pid]
	if !ok {
		return 0, fmt.Errorf("bsp: process %d is not linked to this one", pid)
	}
	return i, nil
}

// floats views b (a multiple of 8 bytes) as float64s, without copying.
func floats(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

func bytesOf(f []float64) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 8*len(f))
}

func (t *commTransport) Send(ctx context.Context, pid int, b []byte) error {
	i, err := t.index(pid)
	if err != nil {
		return err
	}
	hb := bytesOf(t.head)
	binary.LittleEndian.PutUint64(hb, uint64(len(b)))
	if len(b) <= inline {
		n := copy(hb[8:], b)
		return t.c.Send(ctx, i, t.head[:(8+n+7)/8], gridapp.DATA)
	}
	if err := t.c.Send(ctx, i, t.head[:1], gridapp.DATA); err != nil {
		return err
	}
	for len(b) > 0 {
		n := min(len(b), chunk)
		part := b[:n]
		if r := (n + 7) / 8 * 8; r != n && cap(b) >= r {
			part = b[:r] // the padding is past the announced length
		}
		if len(part)%8 != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(part)))%8 != 0 {
			part = make([]byte, (n+7)/8*8)
			copy(part, b[:n])
		}
		if err := t.c.Send(ctx, i, floats(part), gridapp.DATA); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func (t *commTransport) Receive(ctx context.Context, pid int, buf []byte) ([]byte, error) {
	i, err := t.index(pid)
	if err != nil {
		return nil, err
	}
	k, err := t.c.Receive(ctx, i, t.head, gridapp.DATA)
	if err != nil {
		return nil, err
	}
	hb := bytesOf(t.head)
	n := int(binary.LittleEndian.Uint64(hb))
	if n < 0 || n > 1<<40 {
		return nil, fmt.Errorf("bsp: message of %d bytes from process %d", n, pid)
	}
	if n <= inline {
		if 8*k < 8+n {
			return nil, fmt.Errorf("bsp: message from process %d: %d bytes, announced %d", pid, 8*k-8, n)
		}
		return append(buf[:0], hb[8:8+n]...), nil
	}
	var f []float64
	if r := (n + 7) / 8 * 8; cap(buf) >= r && uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%8 == 0 {
		f = floats(buf[:r])
	} else {
		f = make([]float64, (n+7)/8)
	}
	for got := 0; got < len(f); {
		k, err := t.c.Receive(ctx, i, f[got:min(len(f), got+chunk/8)], gridapp.DATA)
		if err != nil {
			return nil, err
		}
		got += k
	}
	return bytesOf(f)[:n], nil
}
