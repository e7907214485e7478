package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// TestCoordinatorTelemetry checks the coordinator's fan-in to the
// submitter: only changed statuses go up, at most once a tick, a heartbeat
// when nothing changed for HeartbeatInterval, and heartbeats down to every
// member.
func TestCoordinatorTelemetry(t *testing.T) {
	c := &coordState{children: map[rmnp.PeerID]string{}, statuses: map[string]NodeStatus{}, changed: map[string]bool{}}
	var all []NodeStatus
	for r := range 32 {
		name := fmt.Sprintf("alpha-%d", r+1)
		c.statuses[name] = NodeStatus{Node: name, Rank: r}
		if r > 0 {
			c.children[NodeID(name)] = name
		}
		all = append(all, NodeStatus{Node: name, Rank: r, State: StateActive, Iteration: 1})
	}
	t0 := time.Unix(1000, 0)
	type step struct {
		at     time.Duration
		merge  []NodeStatus
		want   msgType // 0: nothing up
		rows   int
		beats  int
		ranks0 int // rank of the first row
	}
	steps := []step{
		{at: 0, merge: all, want: msgStatus, rows: 32, beats: 31},
		{at: 100 * time.Millisecond},
		{at: 200 * time.Millisecond, merge: []NodeStatus{{Node: "alpha-7", Rank: 6, State: StateActive, Iteration: 5}}, want: msgStatus, rows: 1, ranks0: 6},
		{at: 300 * time.Millisecond, merge: []NodeStatus{{Node: "alpha-7", Rank: 6, Iteration: 4}}, beats: 31},
		{at: 500 * time.Millisecond, want: msgHeartbeat},
		{at: 600 * time.Millisecond, merge: []NodeStatus{{Node: "beta-1", Rank: 40}}, beats: 31},
	}
	for i, st := range steps {
		c.merge(st.merge)
		up, beat := c.due(t0.Add(st.at))
		if len(beat) != st.beats {
			t.Errorf("step %d: %d heartbeats down, want %d", i, len(beat), st.beats)
		}
		if st.want == 0 {
			if up != nil {
				t.Errorf("step %d: sent %v up, want nothing", i, msgType(up[0]))
			}
			continue
		}
		typ, body, err := decodeMsg(up)
		if err != nil || typ != st.want {
			t.Fatalf("step %d: up %v (%v), want %v", i, typ, err, st.want)
		}
		if typ != msgStatus {
			continue
		}
		var ss []NodeStatus
		if err := decodeBody(typ, body, &ss); err != nil {
			t.Fatal(err)
		}
		if len(ss) != st.rows || ss[0].Rank != st.ranks0 {
			t.Errorf("step %d: %d rows from rank %d, want %d from rank %d", i, len(ss), ss[0].Rank, st.rows, st.ranks0)
		}
	}
}
