package checkpoint

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"sync"
	"time"
)

// Memory keeps checkpoints in memory: a worker's own parts' and the copies
// its buddies send it (double in-memory checkpointing, docs/FAILURES.md).
// It holds the encoded containers (Append), so that what it hands back is
// checked exactly as a file is: checksum, run, identity and rank. It keeps
// one run's checkpoints: a checkpoint of another run drops the previous
// run's. The zero value is not usable: NewMemory.
type Memory struct {
	// Window and Budget keep, beyond the newest keep, every checkpoint put
	// within Window (0: none) as long as a rank's checkpoints take at most
	// Budget bytes.
	Window time.Duration
	Budget int

	keep  int
	max   int64
	mu    sync.Mutex
	run   string
	byRk  map[int][]memEntry // newest first
	pins  map[int][]uint64   // by rank: iterations kept beyond the newest keep
	spare [][]byte           // evicted containers' buffers, for the next ones
}

// spares is how many evicted buffers a Memory keeps for reuse.
const spares = 4

// Buffer returns an empty buffer of capacity at least n for the next
// container: an evicted one when it is large enough (no allocation, nor the
// page faults of one, per checkpoint), else a new one.
func (m *Memory) Buffer(n int) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, b := range m.spare {
		if cap(b) >= n {
			m.spare = append(m.spare[:i], m.spare[i+1:]...)
			return b[:0]
		}
	}
	return make([]byte, 0, n)
}

type memEntry struct {
	it   uint64
	at   time.Time
	data []byte
	buf  []byte // the buffer data lies in (KeepIn), spared whole when evicted
}

// NewMemory returns a store that keeps the newest keep checkpoints of each
// rank, of payloads of at most max bytes (0: 16 GiB).
func NewMemory(keep int, max int64) *Memory {
	if max <= 0 {
		max = 16 << 30
	}
	return &Memory{Budget: 256 << 20, keep: max2(keep), max: max, byRk: map[int][]memEntry{}, pins: map[int][]uint64{}}
}

func max2(n int) int { return max(n, 2) }

// Put keeps an encoded checkpoint (the bytes Append wrote). It reads its
// header to file it, and refuses a container that does not decode. Of the
// rank's checkpoints it keeps the newest keep and those of the iterations
// pinned (nil: the previous pins stay): the ones the worker last reported,
// which a recovery may ask for.
func (m *Memory) Put(data []byte, pinned []uint64) (Header, error) {
	return m.PutIn(data, data, pinned)
}

// PutIn is Put of data lying in buf (a received message's buffer, after
// its framing): the store owns buf, and reuses all of it once it evicts
// data (Buffer).
func (m *Memory) PutIn(data, buf []byte, pinned []uint64) (Header, error) {
	h, _, err := Parse(data, m.max)
	if err != nil {
		return Header{}, err
	}
	m.KeepIn(h, data, buf, pinned)
	return h, nil
}

// Keep is Put of a container this process encoded under h (not read
// again: the worker's own checkpoints, which Load checks when it restores).
func (m *Memory) Keep(h Header, data []byte, pinned []uint64) { m.KeepIn(h, data, data, pinned) }

// KeepIn is Keep of data lying in buf (after room for a message's
// framing, PutIn): the store owns buf, and reuses all of it once it
// evicts data (Buffer).
func (m *Memory) KeepIn(h Header, data, buf []byte, pinned []uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.Run != m.run {
		m.run, m.byRk, m.pins = h.Run, map[int][]memEntry{}, map[int][]uint64{}
	}
	if pinned != nil {
		m.pins[h.Rank] = slices.Clone(pinned)
	}
	es := slices.DeleteFunc(m.byRk[h.Rank], func(e memEntry) bool { return e.it == h.Iteration })
	now := time.Now()
	es = slices.Insert(es, 0, memEntry{h.Iteration, now, data, buf})
	slices.SortStableFunc(es, func(a, b memEntry) int {
		switch {
		case a.it > b.it:
			return -1
		case a.it < b.it:
			return 1
		}
		return 0
	})
	pins := m.pins[h.Rank]
	kept, size := es[:0], 0
	for i, e := range es {
		size += len(e.data)
		recent := now.Sub(e.at) < m.Window && size <= m.Budget
		if i < m.keep || recent || slices.Contains(pins, e.it) {
			kept = append(kept, e) // in place: at or before i, e is read
			continue
		}
		// Spared here, as it is evicted: the tail left after compacting
		// in place holds kept entries too (an evicted one before a kept
		// one), whose buffers must never be handed out.
		if len(m.spare) < spares {
			m.spare = append(m.spare, e.buf)
		}
	}
	clear(es[len(kept):])
	m.byRk[h.Rank] = kept
}

// Iterations returns the iterations of rank's checkpoints of run it holds,
// newest first.
func (m *Memory) Iterations(run string, rank int) []uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if run != m.run {
		return nil
	}
	var out []uint64
	for _, e := range m.byRk[rank] {
		out = append(out, e.it)
	}
	return out
}

// Encoded returns a copy of the container of want.Rank's checkpoint of
// iteration it (latest: the newest), unchecked, or nil.
func (m *Memory) Encoded(want Header, it uint64, latest bool) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if want.Run != m.run {
		return nil
	}
	for _, e := range m.byRk[want.Rank] {
		if latest || e.it == it {
			return bytes.Clone(e.data) // the store reuses its buffers
		}
	}
	return nil
}

// DropAfter forgets rank's checkpoints of run past iteration it: the part
// restarted from it (a step's start, the start of the run), and those are
// of the timeline it abandoned, which a newest must never restore again.
// (Keep does not infer it from an earlier iteration arriving: a restored
// checkpoint kept again may arrive after the part's next one.)
func (m *Memory) DropAfter(run string, rank int, it uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if run != m.run {
		return
	}
	m.byRk[rank] = slices.DeleteFunc(m.byRk[rank], func(e memEntry) bool {
		if e.it <= it {
			return false
		}
		if len(m.spare) < spares {
			m.spare = append(m.spare, e.buf)
		}
		return true
	})
}

// Drop forgets run's checkpoints (the run ended well).
func (m *Memory) Drop(run string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if run == m.run {
		m.run, m.byRk, m.pins = "", map[int][]memEntry{}, map[int][]uint64{}
	}
}

// Parse checks one whole encoded checkpoint in place, as Read does (and
// refusing bytes after the checksum), and returns its header and payload,
// which aliases data: no copy of a large state.
func Parse(data []byte, max int64) (Header, []byte, error) {
	h, err := ParseHeader(data)
	if err != nil {
		return Header{}, nil, err
	}
	end := HeaderLen(h)
	length := binary.LittleEndian.Uint64(data[end-8:])
	if length > uint64(max) {
		return Header{}, nil, fmt.Errorf("%w: payload of %d bytes (at most %d)", ErrCorrupt, length, max)
	}
	if uint64(len(data)-end) < length+4 {
		return Header{}, nil, fmt.Errorf("%w: %d bytes after the header, want %d", ErrTruncated, len(data)-end, length+4)
	}
	stop := end + int(length)
	if got, want := binary.LittleEndian.Uint32(data[stop:]), crc32.Checksum(data[:stop], castagnoli); got != want {
		return Header{}, nil, fmt.Errorf("%w: checksum %08x, content gives %08x", ErrCorrupt, got, want)
	}
	if extra := len(data) - stop - 4; extra != 0 {
		return Header{}, nil, fmt.Errorf("%w: %d bytes after the checksum", ErrCorrupt, extra)
	}
	return h, data[end:stop], nil
}

// ParseHeader reads the header at the start of an encoded checkpoint: a
// whole one, or its first HeaderLen bytes (a holder's answer to a
// header-only fetch). Neither the payload nor the checksum is checked.
func ParseHeader(data []byte) (Header, error) {
	var h Header
	if len(data) < 6 {
		return h, fmt.Errorf("%w: %d bytes", ErrTruncated, len(data))
	}
	if string(data[:4]) != magic {
		return h, fmt.Errorf("%w: magic %q, not %q", ErrCorrupt, data[:4], magic)
	}
	if data[4] != version {
		return h, fmt.Errorf("%w: version %d (this gridtui reads %d)", ErrCorrupt, data[4], version)
	}
	n := int(data[5])
	if end := n + fixedLen; len(data) < end {
		return h, fmt.Errorf("%w: header of %d bytes, want %d", ErrTruncated, len(data), end)
	}
	h.Run = string(data[6 : 6+n])
	p := data[6+n:]
	copy(h.Identity[:], p[:32])
	h.Rank = int(binary.LittleEndian.Uint32(p[32:]))
	h.Ranks = int(binary.LittleEndian.Uint32(p[36:]))
	decodeStep(&h, binary.LittleEndian.Uint32(p[40:]))
	h.Iteration = binary.LittleEndian.Uint64(p[44:])
	if h.Rank >= h.Ranks {
		return Header{}, fmt.Errorf("%w: rank %d of %d", ErrCorrupt, h.Rank, h.Ranks)
	}
	return h, nil
}

// Verify decodes an encoded checkpoint and checks it against want (and, when
// latest is false, that it is of iteration it): the checks of a file, for a
// copy that came from memory or over the network. from names where it came
// from in the error.
func Verify(data []byte, want Header, it uint64, latest bool, max int64, from string) (Header, []byte, error) {
	h, payload, err := Parse(data, max)
	if err == nil {
		err = Check(h, want)
	}
	if err == nil && !latest && h.Iteration != it {
		err = fmt.Errorf("%w: rank %d: the copy of iteration %d holds iteration %d", ErrCorrupt, want.Rank, it, h.Iteration)
	}
	if err != nil {
		return Header{}, nil, fmt.Errorf("%s: %w", from, err)
	}
	return h, payload, nil
}
