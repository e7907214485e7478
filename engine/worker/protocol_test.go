package worker

import (
	"errors"
	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/engine/solve"
	"math"
	"reflect"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

func TestValuesRoundTrip(t *testing.T) {
	dst := [][]float64{make([]float64, 3), make([]float64, 5)}
	src := []float64{1.5, math.Inf(-1), -0.0}
	r, n, err := DecodeValues(encodeValues(7, 1, 2, src), 7, dst)
	if err != nil || r != 1 || n != 3 {
		t.Fatalf("decode: rank %d, %d values, %v", r, n, err)
	}
	for i, v := range src {
		if math.Float64bits(dst[1][2+i]) != math.Float64bits(v) {
			t.Errorf("value %d = %v, want %v", i, dst[1][2+i], v)
		}
	}
	for name, m := range map[string][]byte{
		"rank out of range": encodeValues(7, 2, 0, src),
		"past the end":      encodeValues(7, 1, 3, src),
		"short":             encodeValues(7, 0, 0, src)[:20],
		"ragged":            encodeValues(7, 0, 0, src)[:28],
	} {
		if _, _, err := DecodeValues(m, 7, dst); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: error %v, want ErrProtocol", name, err)
		}
	}
	// A chunk of another attempt is stale, and dst keeps its values.
	dst[1][2] = 9
	if _, _, err := DecodeValues(encodeValues(6, 1, 2, src), 7, dst); !errors.Is(err, ErrStale) || dst[1][2] != 9 {
		t.Errorf("another attempt's chunk: error %v, value %v; want ErrStale and the value kept", err, dst[1][2])
	}
}

func TestControlRoundTrip(t *testing.T) {
	part := solve.PartTask{App: "poisson", Params: map[string]string{"n": "9"}, Rank: 1, Ranks: 3,
		Part:  gridapp.PartSpec{Neighbours: []int{0, 2}, Spec: []byte(`{"Lo":3,"Hi":6}`), Size: 243},
		Trees: [2]solve.TreeView{{Parent: 0, Children: []int{2}, Heights: []int{0}, Height: 1, Depth: 2}, {Parent: 2, Children: []int{0}, Heights: []int{0}, Height: 1, Depth: 2}},
		Eps:   1e-8}
	task := WorkerTask{Run: 7, Node: "alpha-2", PartTask: part, Cores: 1, Scheme: jobs.Hybrid,
		Neighbours: []*NeighbourTask{{Rank: 2, Node: "beta-1", Peer: NodeID("beta-1"), Dial: true}}}
	m, err := EncodeMsg(MsgTask, task)
	if err != nil {
		t.Fatal(err)
	}
	typ, body, err := DecodeMsg(m)
	var got WorkerTask
	if err == nil {
		err = DecodeBody(typ, body, &got)
	}
	if err != nil || typ != MsgTask || len(got.Neighbours) != 1 || got.Neighbours[0].Node != "beta-1" || got.Params["n"] != "9" || !reflect.DeepEqual(got.PartTask, task.PartTask) || got.Run != 7 {
		t.Fatalf("round trip: %v %v %+v", typ, err, got)
	}
	if _, _, err := DecodeMsg([]byte{0}); !errors.Is(err, ErrProtocol) {
		t.Errorf("type 0: %v", err)
	}
	if err := DecodeBody(MsgTask, []byte(`{"Node":"x","Bogus":1}`), &got); !errors.Is(err, ErrProtocol) {
		t.Errorf("unknown field: %v", err)
	}
}

func TestNodeID(t *testing.T) {
	if NodeID("alpha-1") == NodeID("alpha-2") || NodeID("alpha-1") != NodeID("alpha-1") || NodeID("") == SubmitterID {
		t.Error("NodeID is not a stable, distinguishing, non-submitter id")
	}
}

// FuzzControlMessage feeds every decoder of the control plane (messages
// come from other processes) arbitrary bytes: no panic, errors wrap
// ErrProtocol.
func FuzzControlMessage(f *testing.F) {
	for _, v := range []struct {
		t MsgType
		b any
	}{
		{MsgAssign, GroupAssign{Run: 1, Members: []Member{{Node: "a", Ctrl: []string{"tcp://127.0.0.1:1"}}}}},
		{MsgTask, WorkerTask{Node: "a", PartTask: solve.PartTask{Part: gridapp.PartSpec{Spec: []byte(`{"Lo":0,"Hi":4}`), Size: 4}}}},
		{MsgStatus, []solve.NodeStatus{{Node: "a", State: solve.StateActive, Traffic: []solve.NetTraffic{{Network: "ethernet"}}}}},
		{MsgResult, ResultHeader{Node: "a", Count: 4}},
		{MsgFailed, Failure{Node: "a", Cause: "x"}},
		{MsgEnd, Abort{Run: 3}},
		{MsgLog, solve.LogEvent{Text: "hi"}},
		{MsgDrain, DrainRequest{Node: "a", Why: "owner back", Run: 7}},
	} {
		m, _ := EncodeMsg(v.t, v.b)
		f.Add(m)
	}
	f.Add(encodeValues(5, 0, 1, []float64{1, 2}))
	f.Fuzz(func(t *testing.T, m []byte) {
		typ, body, err := DecodeMsg(m)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatal(err)
			}
			return
		}
		var sink any
		switch typ {
		case MsgAssign:
			sink = &GroupAssign{}
		case MsgTask:
			sink = &WorkerTask{}
		case MsgStatus:
			sink = &[]solve.NodeStatus{}
		case MsgResult:
			sink = &ResultHeader{}
		case MsgFailed:
			sink = &Failure{}
		case MsgAbort, MsgEnd, MsgEnded:
			sink = &Abort{}
		case MsgLog:
			sink = &solve.LogEvent{}
		case MsgDrain:
			sink = &DrainRequest{}
		case MsgValues:
			dst := [][]float64{make([]float64, 4), make([]float64, 2)}
			if _, _, err := DecodeValues(m, 5, dst); err != nil && !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrStale) {
				t.Fatal(err)
			}
			return
		default:
			return
		}
		if err := DecodeBody(typ, body, sink); err != nil && !errors.Is(err, ErrProtocol) {
			t.Fatal(err)
		}
	})
}

func TestNodeStateJSON(t *testing.T) {
	if solve.StateAborted.String() != "aborted" {
		t.Errorf("StateAborted reads %q", solve.StateAborted)
	}
	for st := solve.StateStarting; st <= solve.StateAborted; st++ {
		b, err := st.MarshalText()
		var back solve.NodeState
		if err != nil || back.UnmarshalText(b) != nil || back != st || string(b) != st.String() {
			t.Errorf("state %v: %q %v → %v", st, b, err, back)
		}
	}
	var s solve.NodeState
	if err := s.UnmarshalText([]byte("dancing")); !errors.Is(err, ErrProtocol) {
		t.Errorf("unknown state: %v", err)
	}
}
