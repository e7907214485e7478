package worker

import (
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
	"slices"
	"testing"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// TestCoordinatorTelemetry checks the coordinator's fan-in to the
// submitter: only changed statuses go up, at most once a tick, a heartbeat
// when nothing changed for HeartbeatInterval, and heartbeats down to every
// member every downInterval.
func TestCoordinatorTelemetry(t *testing.T) {
	c := &coordState{children: map[rmnp.PeerID]string{}, statuses: map[string]solve.NodeStatus{}, changed: map[string]bool{}}
	var all []solve.NodeStatus
	for r := range 32 {
		name := fmt.Sprintf("alpha-%d", r+1)
		c.statuses[name] = solve.NodeStatus{Node: name, Rank: r}
		if r > 0 {
			c.children[NodeID(name)] = name
		}
		all = append(all, solve.NodeStatus{Node: name, Rank: r, State: solve.StateActive, Iteration: 1})
	}
	t0 := time.Unix(1000, 0)
	type step struct {
		at     time.Duration
		merge  []solve.NodeStatus
		want   MsgType // 0: nothing up
		rows   int
		beats  int
		ranks0 int // rank of the first row
	}
	steps := []step{
		{at: 0, merge: all, want: MsgStatus, rows: 32, beats: 31},
		{at: 100 * time.Millisecond},
		{at: 200 * time.Millisecond, merge: []solve.NodeStatus{{Node: "alpha-7", Rank: 6, State: solve.StateActive, Iteration: 5}}, want: MsgStatus, rows: 1, ranks0: 6},
		{at: 300 * time.Millisecond, merge: []solve.NodeStatus{{Node: "alpha-7", Rank: 6, Iteration: 4}}},
		{at: 500 * time.Millisecond, want: MsgHeartbeat},
		{at: 600 * time.Millisecond, merge: []solve.NodeStatus{{Node: "beta-1", Rank: 40}}},
		{at: DownInterval, want: MsgHeartbeat, beats: 31},
	}
	for i, st := range steps {
		c.merge(st.merge)
		up, beat, _ := c.due(t0.Add(st.at))
		if len(beat) != st.beats {
			t.Errorf("step %d: %d heartbeats down, want %d", i, len(beat), st.beats)
		}
		if st.want == 0 {
			if up != nil {
				t.Errorf("step %d: sent %v up, want nothing", i, MsgType(up[0]))
			}
			continue
		}
		typ, body, err := DecodeMsg(up)
		if err != nil || typ != st.want {
			t.Fatalf("step %d: up %v (%v), want %v", i, typ, err, st.want)
		}
		if typ != MsgStatus {
			continue
		}
		var ss []solve.NodeStatus
		if err := DecodeBody(typ, body, &ss); err != nil {
			t.Fatal(err)
		}
		if len(ss) != st.rows || ss[0].Rank != st.ranks0 {
			t.Errorf("step %d: %d rows from rank %d, want %d from rank %d", i, len(ss), ss[0].Rank, st.rows, st.ranks0)
		}
	}
}

// TestCoordinatorStartup checks how a coordinator learns that its
// children's start-up is over: a member when its own status leaves
// starting, a coordinator below once every node of its subtree did; and
// that its heartbeats down say the run has started once its parent said
// so.
func TestCoordinatorStartup(t *testing.T) {
	mem := func(names ...string) []Member {
		var ms []Member
		for _, n := range names {
			ms = append(ms, Member{Node: n, Peer: NodeID(n)})
		}
		return ms
	}
	a := GroupAssign{Coordinator: "alpha-1", Members: mem("alpha-1", "alpha-2", "alpha-3"),
		Subgroups: []subAssign{{Assign: GroupAssign{Coordinator: "beta-1", Members: mem("beta-1", "beta-2")}}}}
	c := newCoordState(a, "alpha-1", func() {})
	if len(c.children) != 3 {
		t.Fatalf("children %v, want alpha-2, alpha-3 and beta-1", c.children)
	}
	active := func(node string, it int) solve.NodeStatus {
		return solve.NodeStatus{Node: node, State: solve.StateActive, Iteration: it}
	}
	steps := []struct {
		merge []solve.NodeStatus
		want  []string
	}{
		{merge: []solve.NodeStatus{{Node: "alpha-2", State: solve.StateStarting}, active("alpha-1", 1)}},
		{merge: []solve.NodeStatus{active("alpha-2", 1), active("beta-1", 1)}, want: []string{"alpha-2"}},
		{merge: []solve.NodeStatus{active("alpha-2", 2), active("beta-1", 2)}},
		{merge: []solve.NodeStatus{active("beta-2", 1), {Node: "alpha-3", State: solve.StateFailed}}, want: []string{"beta-1", "alpha-3"}},
	}
	for i, st := range steps {
		var got []string
		for _, id := range c.merge(st.merge) {
			got = append(got, c.children[id])
		}
		slices.Sort(got)
		slices.Sort(st.want)
		if !slices.Equal(got, st.want) {
			t.Errorf("step %d: started %v, want %v", i, got, st.want)
		}
	}
	t0 := time.Unix(1000, 0)
	if _, _, started := c.due(t0); started {
		t.Error("heartbeats say the run started before the parent did")
	}
	c.parentStarted()
	if _, beat, started := c.due(t0.Add(time.Second)); !started || len(beat) != 3 {
		t.Errorf("after the parent's word: started %v, %d heartbeats down", started, len(beat))
	}
	if typ, body, err := DecodeMsg(HeartbeatMsg(true)); err != nil || typ != MsgHeartbeat || len(body) != 1 || body[0] != runStarted {
		t.Errorf("heartbeat saying the run started decodes as %v %v %v", typ, body, err)
	}
}
