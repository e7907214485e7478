package worker

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/rmnp"
)

// The control plane: every message between submitter, coordinators and
// workers is one RMNP CTRL message on a worker's control endpoint, separate
// from the data endpoint on which Solve exchanges halos and detector
// messages (so neither can consume the other's CTRL messages). A message is
// one type byte followed by a JSON body, except msgValues, which is binary,
// and msgHeartbeat, which has no body or, going down the tree, one byte:
//
//	msgValues: type (1) ‖ run (uint64 LE) ‖ rank (uint32 LE) ‖ offset (uint64 LE) ‖ float64 LE…
//	msgHeartbeat: type (1) [‖ runStarted (1): every node of the run has started]
//
// The thirteen steps of GRIDHPC Sec. V-B map onto them: msgAssign (send
// sub-tasks to coordinators), msgTask (forward sub-tasks), msgStatus
// (telemetry up), msgResult + msgValues (send and forward results), msgEnd
// and msgAbort (the run ends, normally or not) acknowledged by msgEnded,
// msgFailed (a node failed), msgLog (event-log lines), msgHeartbeat
// (liveness in both directions). Beside the tree, a worker sends each
// checkpoint of its part to its buddy (msgCopy, binary: type ‖ the
// checkpoint container), and a restored part asks a holder for its copy
// (msgCopyFetch, JSON; msgCopyReply, binary: type ‖ id (uint64 LE) ‖ ok (1)
// ‖ the container, or the reason it has none); the submitter asks for the
// newest copy's header alone (msgCopyFetch with Header: the reply carries
// the container's first HeaderLen bytes). A worker whose host's owner
// policy gives its part back asks the submitter to drain it (msgDrain, up
// the tree like msgFailed).
type MsgType uint8

const (
	MsgHeartbeat MsgType = iota + 1
	MsgAssign
	MsgTask
	MsgStatus
	MsgResult
	MsgValues
	MsgFailed
	MsgAbort
	MsgEnd
	MsgLog
	MsgEnded
	// MsgCopy, MsgCopyFetch and MsgCopyReply carry the in-memory
	// checkpoints between a worker and its buddy (buddy.go).
	MsgCopy
	MsgCopyFetch
	MsgCopyReply
	// MsgDrain asks the submitter to drain the sending node (DrainRequest):
	// its owner policy gives its part back (engine/worker/owner.go).
	MsgDrain
)

var msgNames = [...]string{"", "heartbeat", "assign", "task", "status", "result", "values", "failed", "abort", "end", "log", "ended", "copy", "copy-fetch", "copy-reply", "drain"}

func (t MsgType) String() string {
	if int(t) < len(msgNames) && t > 0 {
		return msgNames[t]
	}
	return fmt.Sprintf("msg(%d)", uint8(t))
}

// runStarted is the body of a heartbeat that a parent sends its children
// once every node of the run has started (heartbeat.go: the end of
// start-up).
const runStarted = 1

// HeartbeatMsg is a heartbeat down the tree, saying whether the whole run
// has started.
func HeartbeatMsg(started bool) []byte {
	if started {
		return []byte{byte(MsgHeartbeat), runStarted}
	}
	return []byte{byte(MsgHeartbeat)}
}

// SubmitterID is the control-plane peer id of the submitter (the console),
// which has no rank.
const SubmitterID rmnp.PeerID = 0

// ctrlScheme marks the control endpoint's addresses in a worker's hello
// ("ctrl+tcp://127.16.64.10:40123"); the other addresses are its data
// endpoint's.
const ctrlScheme = "ctrl+"

// valuesChunk is the number of float64s per msgValues message (8 MiB).
const valuesChunk = 1 << 20

// ErrProtocol is wrapped by every malformed control message.
var ErrProtocol = solve.ErrProtocol

// NodeID is the peer id of a node on both its endpoints: the FNV-1a hash of
// its name, never SubmitterID. The planner refuses a job whose node names
// collide.
func NodeID(name string) rmnp.PeerID {
	h := fnv.New32a()
	h.Write([]byte(name))
	id := rmnp.PeerID(h.Sum32())
	if id == SubmitterID {
		id = 1
	}
	return id
}

// NeighbourTask tells a worker about one neighbour of its part. The lower
// rank of a pair dials (Dial) over the first of Routes that answers
// (pre-flight with fallback); Addrs[i] is the rmnp address for Routes[i].
type NeighbourTask struct {
	Rank   int
	Node   string
	Peer   rmnp.PeerID
	Mode   rmnp.Mode
	Dial   bool
	Routes []probe.Route `json:",omitempty"`
	Addrs  []string      `json:",omitempty"`
}

// WorkerTask is one worker's subtask as its coordinator forwards it. Run
// identifies the run, so that a late end-of-run message of a previous run
// on reused workers is recognised and ignored.
type WorkerTask struct {
	Run   uint64
	Node  string
	Group int
	// PartTask is the rank's share of the task Define gave at the
	// submitter: the worker builds its part from it, never defining the
	// task again.
	solve.PartTask
	Cores    int
	Scheme   jobs.Scheme
	Detector jobs.Detector
	MaxIter  int // the job's limit and the application's, the smaller (0: none)
	// Neighbours are the ranks the part exchanges with, in the task's order.
	Neighbours []*NeighbourTask `json:",omitempty"`
	// Checkpoint is the part's checkpoint plan (nil: none).
	Checkpoint *solve.CheckpointPlan `json:",omitempty"`
}

// Member is one worker of a group: where its control endpoint listens
// (Ethernet first) and its task.
type Member struct {
	Node string
	Peer rmnp.PeerID
	Ctrl []string
	Task WorkerTask
}

// GroupAssign is what the submitter sends a coordinator: its group's
// members and, for a coordinator of coordinators (Plan.Levels), the
// assignments it forwards to the coordinators below it.
type GroupAssign struct {
	Run         uint64
	Group       int
	Coordinator string
	Members     []Member
	// Parent is the peer the coordinator reports to: the submitter
	// (SubmitterID, the zero value) or a coordinator of coordinators.
	Parent    rmnp.PeerID `json:",omitempty"`
	Subgroups []subAssign `json:",omitempty"`
}

// subAssign is the assignment of a coordinator one level down, with the
// control addresses to reach it.
type subAssign struct {
	Ctrl   []string
	Assign GroupAssign
}

// ResultHeader announces a worker's result; Count values follow in
// msgValues chunks tagged with Rank.
type ResultHeader struct {
	Run        uint64 // the attempt (a late result of an attempt before is dropped)
	Node       string
	Rank       int
	Iterations int
	Sigma      float64
	Converged  bool
	Compute    time.Duration
	Send       time.Duration
	Wait       time.Duration
	Count      int
	Traffic    []solve.NetTraffic `json:",omitempty"`
	Route      string             `json:",omitempty"` // the route to the upper neighbour
	// Dialled are the routes pre-flight chose to every neighbour this node
	// dialled (the report's networks: direct or through gateways).
	Dialled []probe.Route `json:",omitempty"`
	PeakRSS uint64        `json:",omitempty"` // the worker process's VmHWM, bytes
	// Sweeps and Links are the node's trace (jobs.NodeTrace).
	Sweeps jobs.SweepHist   `json:",omitzero"`
	Links  []jobs.LinkTrace `json:",omitempty"`
	// OwnerHeld is the time the host's owner policy held the part during
	// the run, in OwnerHolds holds (package owner).
	OwnerHeld  time.Duration `json:",omitempty"`
	OwnerHolds int           `json:",omitempty"`
}

// Failure reports a failed node and why.
type Failure struct {
	Node  string
	Cause string
	Run   uint64 // the attempt that failed: a late failure of an attempt before is dropped
}

// DrainRequest is a node's request to be drained (msgDrain): its part
// moves to a spare or a free host, as `gridtui drain` moves it.
type DrainRequest struct {
	Node string
	Why  string
	Run  uint64 // the attempt: a late request of an attempt before is dropped
}

// Abort tells the nodes below to stop the run (msgAbort) or that it is
// over (msgEnd); msgEnded acknowledges either once the node has left the
// run and rebound its data endpoint, so that the next run on the same
// workers never meets the previous one's links.
type Abort struct {
	Run    uint64
	Reason string
	// Lost names the nodes the submitter knows are lost: a coordinator
	// does not wait for their acknowledgement (a recovery starts sooner).
	Lost []string `json:",omitempty"`
}

// EncodeMsg frames a JSON control message.
func EncodeMsg(t MsgType, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("engine: encode %s message: %w", t, err)
	}
	return append([]byte{byte(t)}, b...), nil
}

// DecodeMsg splits a control message into its type and body and checks the
// type is known.
func DecodeMsg(b []byte) (MsgType, []byte, error) {
	if len(b) == 0 {
		return 0, nil, fmt.Errorf("%w: empty", ErrProtocol)
	}
	t := MsgType(b[0])
	if t < MsgHeartbeat || t > MsgDrain {
		return 0, nil, fmt.Errorf("%w: unknown type %d", ErrProtocol, b[0])
	}
	return t, b[1:], nil
}

// DecodeBody decodes a JSON body, rejecting unknown fields.
func DecodeBody(t MsgType, body []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProtocol, t, err)
	}
	return nil
}

// encodeValues frames one chunk of a result's values.
func encodeValues(run uint64, rank int, offset int, v []float64) []byte {
	b := make([]byte, valuesHeader+8*len(v))
	b[0] = byte(MsgValues)
	binary.LittleEndian.PutUint64(b[1:], run)
	binary.LittleEndian.PutUint32(b[9:], uint32(rank))
	binary.LittleEndian.PutUint64(b[13:], uint64(offset))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[valuesHeader+8*i:], math.Float64bits(x))
	}
	return b
}

// valuesHeader is the size of a msgValues chunk's header.
const valuesHeader = 21

// ErrStale is returned for a message of an earlier attempt of the run (a
// recovery's attempt before, or the run before on reused workers): it
// arrived late and is dropped.
var ErrStale = errors.New("engine: message of an earlier attempt")

// ValuesRun is the attempt a msgValues chunk is of (0 if it is too short).
func ValuesRun(b []byte) uint64 {
	if len(b) < valuesHeader {
		return 0
	}
	return binary.LittleEndian.Uint64(b[1:])
}

// DecodeValues copies a msgValues chunk of attempt run into dst (indexed
// by rank), checking bounds against each rank's expected length; a chunk
// of another attempt is ErrStale.
func DecodeValues(b []byte, run uint64, dst [][]float64) (rank int, n int, err error) {
	if len(b) < valuesHeader || MsgType(b[0]) != MsgValues || (len(b)-valuesHeader)%8 != 0 {
		return 0, 0, fmt.Errorf("%w: values chunk of %d bytes", ErrProtocol, len(b))
	}
	if got := ValuesRun(b); got != run {
		return 0, 0, fmt.Errorf("%w: values of run %016x", ErrStale, got)
	}
	r := binary.LittleEndian.Uint32(b[9:])
	off := binary.LittleEndian.Uint64(b[13:])
	n = (len(b) - valuesHeader) / 8
	if uint64(r) >= uint64(len(dst)) {
		return 0, 0, fmt.Errorf("%w: values for rank %d of %d", ErrProtocol, r, len(dst))
	}
	v := dst[r]
	if off > uint64(len(v)) || uint64(n) > uint64(len(v))-off {
		return 0, 0, fmt.Errorf("%w: values [%d,+%d) outside rank %d's %d", ErrProtocol, off, n, r, len(v))
	}
	for i := range n {
		v[int(off)+i] = math.Float64frombits(binary.LittleEndian.Uint64(b[valuesHeader+8*i:]))
	}
	return int(r), n, nil
}

// ConnectCtrl links ep to a node's control endpoint, trying its addresses in
// order (Ethernet first: the fast network of a cluster may not reach the
// console's site), and returns the address that answered.
func ConnectCtrl(ctx context.Context, ep *rmnp.Endpoint, peer rmnp.PeerID, addrs []string) (string, error) {
	var errs []error
	for _, a := range addrs {
		err := connectRetry(ctx, ep, peer, a)
		if err == nil {
			return a, nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return "", fmt.Errorf("%w: no control address", ErrProtocol)
	}
	return "", errors.Join(errs...)
}

// SplitListen separates a hello's addresses into the control endpoint's and
// the data endpoint's.
func SplitListen(addrs []string) (ctrl, data []string) {
	for _, a := range addrs {
		if rest, ok := strings.CutPrefix(a, ctrlScheme); ok {
			ctrl = append(ctrl, rest)
		} else {
			data = append(data, a)
		}
	}
	return ctrl, data
}
