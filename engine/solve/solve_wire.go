package solve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Control messages between slab neighbours (rmnp CTRL), little-endian:
//
//	off size field
//	0   1    kind (ctrlKind)
//	1   7    zero
//	8   8    seq   (update sequence number, token flags)
//	16  8    arg   (iteration, stop iteration, section number)
//	24  8·m  float64 payload (section halo plane, or one σ for a vote)
//
// Halo DATA messages are float64 vectors: haloHeader values (the stamp: seq
// or a token's argument as bits, the halo kind as bits), then the plane
// (absent for a marker). The asynchronous schemes stamp an update's seq
// (haloPlane, haloMarker); the synchronous scheme stamps the convergence
// tokens (haloSync…haloTerm, sync_stamp.go), which therefore never travel
// as control messages.
const (
	ctrlHeader = 24
	haloHeader = 2
)

// ctrlKind is the kind of a control message.
type ctrlKind uint8

const (
	ctrlConv            ctrlKind = iota + 1 // not sent: the tokens ride in the synchronous halos' stamps (kept so the codes below stay)
	ctrlTerm                                // not sent, as ctrlConv
	ctrlActivate                            // activity graph (seq: update)
	ctrlInactivate                          //
	ctrlAck                                 //
	ctrlTerminate                           //
	ctrlSectionHalo                         // switch: arg section<<1 | step, seq: update seq, payload plane
	ctrlSectionVote                         // switch: arg section, seq flags, payload σ
	ctrlSectionDecision                     // switch: arg section, seq flags
	ctrlStepVote                            // outer steps: arg step, seq 1 if converged
	ctrlStepGo                              // outer steps: arg step, seq 1 to go on
	ctrlStepFence                           // outer steps: arg step
	ctrlKinds
)

// Halo DATA kinds.
const (
	haloPlane  = 1 // a plane follows
	haloMarker = 2 // hybrid synchronous link: "my plane moved by less than ε"
)

// errWire reports a malformed control or halo message from a neighbour.
var errWire = errors.New("engine: malformed neighbour message")

// ctrlMsg is a decoded control message; payload aliases the receive buffer.
type ctrlMsg struct {
	kind    ctrlKind
	seq     uint64
	arg     uint64
	payload []byte
}

// encodeCtrl writes m's header (and payload floats, if any) into buf, which
// must be large enough, and returns the message.
func encodeCtrl(buf []byte, kind ctrlKind, seq, arg uint64, payload []float64) []byte {
	buf = buf[:ctrlHeader+8*len(payload)]
	clear(buf[:8])
	buf[0] = byte(kind)
	binary.LittleEndian.PutUint64(buf[8:], seq)
	binary.LittleEndian.PutUint64(buf[16:], arg)
	for i, v := range payload {
		binary.LittleEndian.PutUint64(buf[ctrlHeader+8*i:], math.Float64bits(v))
	}
	return buf
}

// decodeCtrl parses a control message; it never panics on any input.
func decodeCtrl(b []byte) (ctrlMsg, error) {
	if len(b) < ctrlHeader {
		return ctrlMsg{}, fmt.Errorf("%w: %d-byte control message", errWire, len(b))
	}
	k := ctrlKind(b[0])
	if k == 0 || k >= ctrlKinds {
		return ctrlMsg{}, fmt.Errorf("%w: control kind %d", errWire, b[0])
	}
	for _, c := range b[1:8] {
		if c != 0 {
			return ctrlMsg{}, fmt.Errorf("%w: reserved bytes set", errWire)
		}
	}
	m := ctrlMsg{kind: k, seq: binary.LittleEndian.Uint64(b[8:]), arg: binary.LittleEndian.Uint64(b[16:]), payload: b[ctrlHeader:]}
	if len(m.payload)%8 != 0 {
		return ctrlMsg{}, fmt.Errorf("%w: payload of %d bytes", errWire, len(m.payload))
	}
	return m, nil
}

// floats decodes the payload into dst and reports whether the sizes match.
func (m ctrlMsg) floats(dst []float64) bool {
	if len(m.payload) != 8*len(dst) {
		return false
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(m.payload[8*i:]))
	}
	return true
}

// activity converts an activity-graph message to its control kind and back.
func (k ActivityKind) ctrl() ctrlKind { return ctrlActivate + ctrlKind(k-MsgActivate) }

func (k ctrlKind) activity() (ActivityKind, bool) {
	if k < ctrlActivate || k > ctrlTerminate {
		return 0, false
	}
	return MsgActivate + ActivityKind(k-ctrlActivate), true
}

// setHaloHeader stamps a halo message.
func setHaloHeader(v []float64, seq uint64, kind uint64) {
	v[0] = math.Float64frombits(seq)
	v[1] = math.Float64frombits(kind)
}

// haloHeaderOf reads a halo message's stamp.
func haloHeaderOf(v []float64) (seq, kind uint64) {
	return math.Float64bits(v[0]), math.Float64bits(v[1])
}
