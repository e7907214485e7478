package checkpoint

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
)

// The container, little-endian throughout:
//
//	magic      4 bytes  "GTCK"
//	version    1 byte   1
//	run length 1 byte   then the run id (at most 255 bytes)
//	identity   32 bytes Identity of the problem and decomposition
//	rank       uint32
//	ranks      uint32
//	step       uint32   outer steps advanced past (0 for a one-step task);
//	                    its top bit set: taken at that step's end (Header.End)
//	iteration  uint64   iterations done when it was taken
//	length     uint64   of the payload
//	payload    length bytes: the part's state (gridapp.Checkpointer)
//	crc        uint32   CRC-32C (Castagnoli) of everything before it
const (
	magic   = "GTCK"
	version = 1
	// fixedLen is the header's length without the run id.
	fixedLen = 4 + 1 + 1 + 32 + 4 + 4 + 4 + 8 + 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors a refused checkpoint wraps.
var (
	// ErrTruncated: the checkpoint ends before its length says.
	ErrTruncated = errors.New("checkpoint: truncated")
	// ErrCorrupt: bad magic, version or checksum, or an impossible length.
	ErrCorrupt = errors.New("checkpoint: corrupt")
	// ErrForeign: a sound checkpoint of another run, problem,
	// decomposition or rank.
	ErrForeign = errors.New("checkpoint: of another run")
)

// Header identifies a checkpoint.
type Header struct {
	Run       string   // the run's id
	Identity  [32]byte // Identity of the problem and decomposition
	Rank      int      // the part's rank
	Ranks     int      // the number of parts
	Step      int      // outer steps advanced past
	Iteration uint64   // iterations done
	// End says that the part took it at the end of its step Step, before
	// it voted for the step's end: the state the next step starts from.
	End bool
}

// stepEnd is the bit of the encoded step that carries Header.End.
const stepEnd = 1 << 31

// encodeStep is h's step field.
func encodeStep(h Header) uint32 {
	s := uint32(h.Step) &^ stepEnd
	if h.End {
		s |= stepEnd
	}
	return s
}

// decodeStep sets h's Step and End from the step field s.
func decodeStep(h *Header, s uint32) {
	h.Step, h.End = int(s&^stepEnd), s&stepEnd != 0
}

// Identity hashes what makes two checkpoints restorable into the same part:
// the application's name, its parameters, and every part's sub-task (its
// Spec and neighbours, i.e. the decomposition).
func Identity(app string, params map[string]string, specs [][]byte, neighbours [][]int) [32]byte {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(app))
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field([]byte(k))
		field([]byte(params[k]))
	}
	for i, s := range specs {
		field(s)
		var nb []byte
		if i < len(neighbours) {
			for _, q := range neighbours[i] {
				nb = binary.LittleEndian.AppendUint32(nb, uint32(q))
			}
		}
		field(nb)
	}
	var id [32]byte
	copy(id[:], h.Sum(nil))
	return id
}

// Append appends the checkpoint of payload under h to dst.
func Append(dst []byte, h Header, payload []byte) ([]byte, error) {
	if len(h.Run) > 255 {
		return dst, fmt.Errorf("checkpoint: run id of %d bytes (at most 255)", len(h.Run))
	}
	start := len(dst)
	dst = appendHeader(dst, h, len(payload))
	dst = append(dst, payload...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli)), nil
}

// appendHeader appends h's header for a payload of n bytes (HeaderLen(h)
// bytes; the run id is at most 255).
func appendHeader(dst []byte, h Header, n int) []byte {
	dst = append(dst, magic...)
	dst = append(dst, version, byte(len(h.Run)))
	dst = append(dst, h.Run...)
	dst = append(dst, h.Identity[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Rank))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Ranks))
	dst = binary.LittleEndian.AppendUint32(dst, encodeStep(h))
	dst = binary.LittleEndian.AppendUint64(dst, h.Iteration)
	return binary.LittleEndian.AppendUint64(dst, uint64(n))
}

// HeaderLen is the length of h's encoded header: a container of h is
// HeaderLen(h) bytes, the payload, and a 4-byte checksum.
func HeaderLen(h Header) int { return fixedLen + len(h.Run) }

// Seal makes buf, whose first HeaderLen(h) bytes are room for the header
// and the rest the payload, the container Append writes of h and that
// payload: it writes the header in place and appends the checksum. The
// payload is serialized straight after the room (no copy of a large
// state); buf needs 4 bytes of spare capacity to take the checksum in
// place.
func Seal(buf []byte, h Header) ([]byte, error) {
	hl := HeaderLen(h)
	if len(h.Run) > 255 {
		return buf, fmt.Errorf("checkpoint: run id of %d bytes (at most 255)", len(h.Run))
	}
	if len(buf) < hl {
		return buf, fmt.Errorf("checkpoint: %d bytes, shorter than the header's %d", len(buf), hl)
	}
	appendHeader(buf[:0], h, len(buf)-hl) // in place: exactly hl bytes
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli)), nil
}

// Read reads one checkpoint from r, of a payload of at most max bytes, and
// verifies its checksum. It reads nothing past the checkpoint. It does not
// judge whose it is: Check does.
func Read(r io.Reader, max int64) (Header, []byte, error) {
	crc := crc32.New(castagnoli)
	tr := io.TeeReader(r, crc)
	var fixed [6]byte
	if err := readFull(tr, fixed[:]); err != nil {
		return Header{}, nil, err
	}
	if string(fixed[:4]) != magic {
		return Header{}, nil, fmt.Errorf("%w: magic %q, not %q", ErrCorrupt, fixed[:4], magic)
	}
	if fixed[4] != version {
		return Header{}, nil, fmt.Errorf("%w: version %d (this gridtui reads %d)", ErrCorrupt, fixed[4], version)
	}
	rest := make([]byte, int(fixed[5])+fixedLen-6)
	if err := readFull(tr, rest); err != nil {
		return Header{}, nil, err
	}
	var h Header
	n := int(fixed[5])
	h.Run = string(rest[:n])
	p := rest[n:]
	copy(h.Identity[:], p[:32])
	h.Rank = int(binary.LittleEndian.Uint32(p[32:]))
	h.Ranks = int(binary.LittleEndian.Uint32(p[36:]))
	decodeStep(&h, binary.LittleEndian.Uint32(p[40:]))
	h.Iteration = binary.LittleEndian.Uint64(p[44:])
	length := binary.LittleEndian.Uint64(p[52:])
	if length > uint64(max) {
		return Header{}, nil, fmt.Errorf("%w: payload of %d bytes (at most %d)", ErrCorrupt, length, max)
	}
	payload := make([]byte, length)
	if err := readFull(tr, payload); err != nil {
		return Header{}, nil, err
	}
	want := crc.Sum32()
	var sum [4]byte
	if err := readFull(r, sum[:]); err != nil {
		return Header{}, nil, err
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return Header{}, nil, fmt.Errorf("%w: checksum %08x, content gives %08x", ErrCorrupt, got, want)
	}
	if h.Rank >= h.Ranks {
		return Header{}, nil, fmt.Errorf("%w: rank %d of %d", ErrCorrupt, h.Rank, h.Ranks)
	}
	return h, payload, nil
}

// readFull reads len(b) bytes; an early end is ErrTruncated.
func readFull(r io.Reader, b []byte) error {
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %w", ErrTruncated, err)
		}
		return fmt.Errorf("checkpoint: read: %w", err)
	}
	return nil
}

// Check says whether a checkpoint with header got may be restored where
// want is expected: same run, identity, rank and ranks; the error wraps
// ErrForeign and says what differs.
func Check(got, want Header) error {
	switch {
	case got.Run != want.Run:
		return fmt.Errorf("%w: run %q, not %q", ErrForeign, got.Run, want.Run)
	case got.Identity != want.Identity:
		return fmt.Errorf("%w: another problem or decomposition (identity %x…, want %x…)", ErrForeign, got.Identity[:4], want.Identity[:4])
	case got.Rank != want.Rank || got.Ranks != want.Ranks:
		return fmt.Errorf("%w: part %d of %d, not %d of %d", ErrForeign, got.Rank, got.Ranks, want.Rank, want.Ranks)
	}
	return nil
}
