package engine

import (
	"errors"
	"github.com/gridtui/gridtui/apps/gridapp"
	"math"
	"reflect"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

func TestValuesRoundTrip(t *testing.T) {
	dst := [][]float64{make([]float64, 3), make([]float64, 5)}
	src := []float64{1.5, math.Inf(-1), -0.0}
	r, n, err := decodeValues(encodeValues(1, 2, src), dst)
	if err != nil || r != 1 || n != 3 {
		t.Fatalf("decode: rank %d, %d values, %v", r, n, err)
	}
	for i, v := range src {
		if math.Float64bits(dst[1][2+i]) != math.Float64bits(v) {
			t.Errorf("value %d = %v, want %v", i, dst[1][2+i], v)
		}
	}
	for name, m := range map[string][]byte{
		"rank out of range": encodeValues(2, 0, src),
		"past the end":      encodeValues(1, 3, src),
		"short":             encodeValues(0, 0, src)[:12],
		"ragged":            encodeValues(0, 0, src)[:20],
	} {
		if _, _, err := decodeValues(m, dst); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: error %v, want ErrProtocol", name, err)
		}
	}
}

func TestControlRoundTrip(t *testing.T) {
	part := PartTask{App: "poisson", Params: map[string]string{"n": "9"}, Rank: 1, Ranks: 3,
		Part:  gridapp.PartSpec{Neighbours: []int{0, 2}, Spec: []byte(`{"Lo":3,"Hi":6}`), Size: 243},
		Trees: [2]TreeView{{Parent: 0, Children: []int{2}, Heights: []int{0}, Height: 1, Depth: 2}, {Parent: 2, Children: []int{0}, Heights: []int{0}, Height: 1, Depth: 2}},
		Eps:   1e-8}
	task := workerTask{Run: 7, Node: "alpha-2", PartTask: part, Cores: 1, Scheme: jobs.Hybrid,
		Neighbours: []*neighbourTask{{Rank: 2, Node: "beta-1", Peer: NodeID("beta-1"), Dial: true}}}
	m, err := encodeMsg(msgTask, task)
	if err != nil {
		t.Fatal(err)
	}
	typ, body, err := decodeMsg(m)
	var got workerTask
	if err == nil {
		err = decodeBody(typ, body, &got)
	}
	if err != nil || typ != msgTask || len(got.Neighbours) != 1 || got.Neighbours[0].Node != "beta-1" || got.Params["n"] != "9" || !reflect.DeepEqual(got.PartTask, task.PartTask) || got.Run != 7 {
		t.Fatalf("round trip: %v %v %+v", typ, err, got)
	}
	if _, _, err := decodeMsg([]byte{0}); !errors.Is(err, ErrProtocol) {
		t.Errorf("type 0: %v", err)
	}
	if err := decodeBody(msgTask, []byte(`{"Node":"x","Bogus":1}`), &got); !errors.Is(err, ErrProtocol) {
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
		t msgType
		b any
	}{
		{msgAssign, groupAssign{Run: 1, Members: []member{{Node: "a", Ctrl: []string{"tcp://127.0.0.1:1"}}}}},
		{msgTask, workerTask{Node: "a", PartTask: PartTask{Part: gridapp.PartSpec{Spec: []byte(`{"Lo":0,"Hi":4}`), Size: 4}}}},
		{msgStatus, []NodeStatus{{Node: "a", State: StateActive, Traffic: []NetTraffic{{Network: "ethernet"}}}}},
		{msgResult, resultHeader{Node: "a", Count: 4}},
		{msgFailed, failure{Node: "a", Cause: "x"}},
		{msgEnd, abort{Run: 3}},
		{msgLog, LogEvent{Text: "hi"}},
	} {
		m, _ := encodeMsg(v.t, v.b)
		f.Add(m)
	}
	f.Add(encodeValues(0, 1, []float64{1, 2}))
	f.Fuzz(func(t *testing.T, m []byte) {
		typ, body, err := decodeMsg(m)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatal(err)
			}
			return
		}
		var sink any
		switch typ {
		case msgAssign:
			sink = &groupAssign{}
		case msgTask:
			sink = &workerTask{}
		case msgStatus:
			sink = &[]NodeStatus{}
		case msgResult:
			sink = &resultHeader{}
		case msgFailed:
			sink = &failure{}
		case msgAbort, msgEnd, msgEnded:
			sink = &abort{}
		case msgLog:
			sink = &LogEvent{}
		case msgValues:
			dst := [][]float64{make([]float64, 4), make([]float64, 2)}
			if _, _, err := decodeValues(m, dst); err != nil && !errors.Is(err, ErrProtocol) {
				t.Fatal(err)
			}
			return
		default:
			return
		}
		if err := decodeBody(typ, body, sink); err != nil && !errors.Is(err, ErrProtocol) {
			t.Fatal(err)
		}
	})
}

func TestNodeStateJSON(t *testing.T) {
	if StateAborted.String() != "aborted" {
		t.Errorf("StateAborted reads %q", StateAborted)
	}
	for st := StateStarting; st <= StateAborted; st++ {
		b, err := st.MarshalText()
		var back NodeState
		if err != nil || back.UnmarshalText(b) != nil || back != st || string(b) != st.String() {
			t.Errorf("state %v: %q %v → %v", st, b, err, back)
		}
	}
	var s NodeState
	if err := s.UnmarshalText([]byte("dancing")); !errors.Is(err, ErrProtocol) {
		t.Errorf("unknown state: %v", err)
	}
}
