package exec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The framed protocol between a worker and its program (gridhpc.c speaks
// the other side). Every frame is a 16-byte little-endian header — kind
// (u8), flags (u8), two reserved bytes, arg (i32), payload length (u64) —
// then the payload. The messages themselves are in the shared window
// (window.go): a send says which neighbour's buffer the program filled.
// The program sends requests; the worker answers the blocking ones (hello,
// the first receive, iterate, result) with one reply frame whose arg is a
// status (0 go on, 1 stop); "go on" carries one byte per neighbour, 1 when
// its values are new since the program's last turn (GRID_Wait).
const (
	headerLen       = 16
	protocolVersion = 1
	// inprocVersion is the hello of libgridhpc_inproc.so (link = "inprocess").
	inprocVersion = 1001
	// maxPayload bounds a frame from the program (a result of 2³¹ values).
	maxPayload = 1 << 34
)

// Frame kinds: requests from the program, then the worker's reply.
const (
	kindHello   = 1 // payload: u32 protocol version
	kindSend    = 2 // unused: sends are announced by the next receive or iterate
	kindReceive = 3 // the run's first receive; payload: 1 byte per neighbour sent to
	kindWait    = 4 // unused: GRID_Wait is local to gridhpc.c
	kindIterate = 5 // payload: f64 local σ, then 1 byte per neighbour sent to
	kindResult  = 6 // payload: the part's values (f64)
	kindAbort   = 7 // flags 1: gridhpc.c caught a bad call; payload: the reason
	// link = "inprocess" (inproc.go, guest.go): the program's library to
	// its worker, JSON payloads but for the result's values.
	kindAddr     = 8  // the program's RMNP address
	kindProgress = 9  // guestProgress: telemetry, and a heartbeat every second
	kindFailed   = 10 // guestFailure: the program's node failed the run
	kindOutcome  = 11 // guestOutcome, then a kindResult frame with the values
	// Checkpoints (checkpoint.go), link = "window".
	kindCkReg  = 12 // before the first receive: u64 bytes of GRID_CheckpointRegister's buffers
	kindCkData = 13 // the answer to statusCheckpoint: the registered buffers' bytes
	kindReply  = 16
)

// Statuses of a reply.
const (
	statusOK   = 0
	statusStop = 1
	// statusCheckpoint asks the program, waiting in GRID_Iterate, for its
	// registered buffers (a kindCkData frame); the reply it waits for
	// follows.
	statusCheckpoint = 2
	// statusRestore carries a restarted program's registered buffers
	// (u64 iteration, then their bytes) before the go of its first receive.
	statusRestore = 3
)

// header is one frame's header.
type header struct {
	kind  uint8
	flags uint8
	arg   int32
	len   uint64
}

var errBadFrame = errors.New("bad frame")

func (h header) encode(b []byte) {
	b[0], b[1], b[2], b[3] = h.kind, h.flags, 0, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(h.arg))
	binary.LittleEndian.PutUint64(b[8:], h.len)
}

// decodeHeader decodes and checks a frame header from the program.
func decodeHeader(b []byte) (header, error) {
	h := header{kind: b[0], flags: b[1], arg: int32(binary.LittleEndian.Uint32(b[4:])), len: binary.LittleEndian.Uint64(b[8:])}
	switch {
	case h.kind < kindHello || h.kind > kindCkData:
		return h, fmt.Errorf("%w: kind %d", errBadFrame, h.kind)
	case b[2] != 0 || b[3] != 0:
		return h, fmt.Errorf("%w: reserved bytes %#x %#x", errBadFrame, b[2], b[3])
	case h.len > maxPayload:
		return h, fmt.Errorf("%w: %d bytes of payload", errBadFrame, h.len)
	}
	return h, nil
}

// kindName names a frame kind for errors, by the C call that sends it.
func kindName(k uint8) string {
	switch k {
	case kindHello:
		return "GRID_Init"
	case kindSend:
		return "GRID_Send"
	case kindReceive:
		return "GRID_Receive"
	case kindWait:
		return "GRID_Wait"
	case kindIterate:
		return "GRID_Iterate"
	case kindResult:
		return "GRID_Result"
	case kindAbort:
		return "GRID_Abort"
	case kindCkReg:
		return "GRID_CheckpointRegister"
	case kindCkData:
		return "a checkpoint"
	case kindAddr, kindProgress, kindFailed, kindOutcome:
		return fmt.Sprintf("an in-process frame (kind %d)", k)
	}
	return fmt.Sprintf("frame kind %d", k)
}

// subtaskMsg is the reply to the program's hello: its sub-task. Layout
// (little-endian): rank, ranks, cores, neighbours (u32 each); lo, hi, unit,
// result size (u64); eps (f64); per neighbour its rank (u32, padded to 8)
// and its halo in bytes (u64); then the params string and a NUL.
type subtaskMsg struct {
	rank, ranks, cores int
	neighbours         []int
	lo, hi, unit, size int
	eps                float64
	halo               int // values per neighbour
	params             string
}

func (m subtaskMsg) encode() []byte {
	b := make([]byte, 0, 56+16*len(m.neighbours)+len(m.params)+1)
	le := binary.LittleEndian
	for _, v := range []int{m.rank, m.ranks, m.cores, len(m.neighbours)} {
		b = le.AppendUint32(b, uint32(v))
	}
	for _, v := range []int{m.lo, m.hi, m.unit, m.size} {
		b = le.AppendUint64(b, uint64(v))
	}
	b = le.AppendUint64(b, math.Float64bits(m.eps))
	for _, q := range m.neighbours {
		b = le.AppendUint64(b, uint64(q))
		b = le.AppendUint64(b, uint64(8*m.halo))
	}
	b = append(b, m.params...)
	return append(b, 0)
}

// readFrame reads one frame header and checks it.
func readHeader(r io.Reader, buf []byte) (header, error) {
	if _, err := io.ReadFull(r, buf[:headerLen]); err != nil {
		return header{}, err
	}
	return decodeHeader(buf[:headerLen])
}
