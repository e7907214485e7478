package solve

import "fmt"

// Side names one of a rank's neighbours: its index in the rank's list of
// neighbours (gridapp.Subtask.Neighbours). On a chain built by
// NewActivityGraph or a chain Subtask, the slots are Lower and Upper.
type Side int

// Sides of a chain: the rank below (rank-1) and the rank above (rank+1).
const (
	Lower Side = iota
	Upper
)

func (s Side) other() Side { return 1 - s }

// String returns "lower" or "upper" for a chain's sides, "neighbour i"
// beyond.
func (s Side) String() string {
	switch s {
	case Lower:
		return "lower"
	case Upper:
		return "upper"
	}
	return fmt.Sprintf("neighbour %d", int(s))
}

// ActivityKind is the kind of an activity-graph control message (GRIDHPC
// Fig. 7). Update messages are the DATA halos themselves and are not listed.
type ActivityKind uint8

// Activity-graph control messages. Activate tells the sender of an update that
// it is now the receiver's parent; Inactivate leaves the graph and
// acknowledges every update taken from the parent; Ack acknowledges updates
// from a non-parent neighbour (needed because asynchronous updates may be
// replaced in flight, see ActivityGraph); Terminate is the termination message.
const (
	MsgActivate ActivityKind = iota + 1
	MsgInactivate
	MsgAck
	MsgTerminate
)

var activityKindNames = [...]string{"", "activate", "inactivate", "ack", "terminate"}

// String returns the message's name.
func (k ActivityKind) String() string {
	if int(k) < len(activityKindNames) && k > 0 {
		return activityKindNames[k]
	}
	return fmt.Sprintf("activity(%d)", uint8(k))
}

// ActivityMsg is a control message of the activity graph, to or from the
// neighbour on Side. Seq is the highest update sequence number it covers.
type ActivityMsg struct {
	Kind ActivityKind
	Side Side
	Seq  uint64
}

// ActivityGraph is the termination detector of asynchronous runs (GRIDHPC
// Sec. VI-B1, Figs. 7–8, after El Baz) for one rank, as a state machine apart
// from I/O. It is a Dijkstra–Scholten diffusing-computation detector: the
// activity graph is the DS tree rooted at rank 0, a node's list of children is
// the set of neighbours that sent it Activate and not yet Inactivate. It runs
// on any connected neighbour graph: the initial graph is a spanning tree of
// it (NewActivityTree; on a chain, the chain itself), along which the
// termination message also travels.
//
// Updates (DATA halos) carry a per-link sequence number starting at 2 (1 is the
// virtual "start" message that makes the initial graph the spanning tree,
// e.g. the chain 0←1←…←b-1).
// Because asynchronous DATA is latest-value, an update may be replaced by a
// newer one before it is read, so acknowledgements are cumulative: a node
// counts its deficit on a link as "highest seq sent > highest seq
// acknowledged". A node defers acknowledging updates from its parent until it
// leaves the graph (Inactivate carries the highest seq taken from the parent)
// and acknowledges updates from other neighbours at once (Ack).
//
// Invariant (the reason termination is never declared early): every node that
// is Active, and every update that is sent but not yet acknowledged, belongs to
// the tree rooted at rank 0 — an active node is engaged, an unacknowledged
// update keeps its sender's deficit positive and so its sender engaged, and an
// engaged non-root node keeps its parent's deficit positive. Hence when the
// root is Inactive with a zero deficit, no node is active and no update is in
// flight or unread, so every node's last sweep passed its local test on the
// halos it holds now. A node taking an update always becomes Active again
// (reactivation), whatever its state was, except Terminated, which no update
// can reach by the invariant.
type ActivityGraph struct {
	root      bool
	has       []bool
	state     NodeState
	engaged   bool
	hasParent bool
	parent    Side
	children  []bool
	sent      []uint64 // highest update seq sent to each side
	acked     []uint64 // highest seq the side acknowledged
	taken     []uint64 // highest update seq taken from each side
	treeKids  []Side   // the spanning tree's children: where Terminate goes
	out       []ActivityMsg
}

// emit returns m as the one message to send, without allocating; the slice
// is valid until the next call on g.
func (g *ActivityGraph) emit(m ActivityMsg) []ActivityMsg {
	g.out = append(g.out[:0], m)
	return g.out
}

// firstSeq is the sequence number of the first real update on a link.
const firstSeq = 2

// NewActivityGraph returns the detector of rank among ranks, Active, with the
// chain as the initial graph (sides Lower and Upper).
func NewActivityGraph(rank, ranks int) (*ActivityGraph, error) {
	if ranks < 1 || rank < 0 || rank >= ranks {
		return nil, fmt.Errorf("engine: activity graph: rank %d out of range for %d ranks", rank, ranks)
	}
	parent := Side(-1)
	if rank > 0 {
		parent = Lower
	}
	var kids []Side
	if rank < ranks-1 {
		kids = []Side{Upper}
	}
	g := NewActivityTree(2, parent, kids)
	g.has[Lower], g.has[Upper] = rank > 0, rank < ranks-1
	return g, nil
}

// NewActivityTree returns the detector of a rank with sides neighbours,
// Active, in the initial graph given by a spanning tree of the neighbour
// graph: its parent side (negative at the root, rank 0) and its children's.
func NewActivityTree(sides int, parent Side, children []Side) *ActivityGraph {
	g := &ActivityGraph{root: parent < 0, state: StateActive, engaged: true,
		has: make([]bool, sides), children: make([]bool, sides), sent: make([]uint64, sides),
		acked: make([]uint64, sides), taken: make([]uint64, sides), treeKids: children,
		out: make([]ActivityMsg, 0, 1+len(children))}
	for i := range g.has {
		g.has[i] = true
	}
	if parent >= 0 {
		g.hasParent, g.parent = true, parent
		g.taken[parent] = firstSeq - 1
	}
	for _, c := range children {
		g.children[c] = true
		g.sent[c] = firstSeq - 1
	}
	return g
}

// State returns StateActive, StateInactive or StateTerminated.
func (g *ActivityGraph) State() NodeState { return g.state }

// Engaged reports whether the node is in the activity graph.
func (g *ActivityGraph) Engaged() bool { return g.engaged }

// Children reports which neighbours are the node's children, by side.
func (g *ActivityGraph) Children() []bool { return append([]bool(nil), g.children...) }

// Parent returns the node's parent side, ok false for the root or a node out
// of the graph.
func (g *ActivityGraph) Parent() (Side, bool) { return g.parent, g.hasParent }

// Deficit reports whether some update the node sent is not acknowledged yet.
func (g *ActivityGraph) Deficit() bool {
	for i, s := range g.sent {
		if g.acked[i] < s {
			return true
		}
	}
	return false
}

// valid reports whether side is one of the node's neighbours.
func (g *ActivityGraph) valid(side Side) bool {
	return side >= 0 && int(side) < len(g.has) && g.has[side]
}

// Send returns the sequence number of a new update to side. Only an Active
// node sends updates.
func (g *ActivityGraph) Send(side Side) (uint64, error) {
	if !g.valid(side) {
		return 0, fmt.Errorf("engine: activity graph: no %s neighbour", side)
	}
	if g.state != StateActive {
		return 0, fmt.Errorf("%w: %s node sends an update", ErrTermination, g.state)
	}
	g.sent[side]++
	return g.sent[side], nil
}

// The messages returned by Update, Passive and Control are valid until the
// next call on g (no allocation on the hot path).

// Update records that the node took the update seq from side. A stale update
// (seq not above what was taken, e.g. overtaken by a synchronous section)
// changes nothing and fresh is false. A fresh update makes the node Active;
// the returned messages must be sent.
func (g *ActivityGraph) Update(side Side, seq uint64) (out []ActivityMsg, fresh bool, err error) {
	if !g.valid(side) {
		return nil, false, fmt.Errorf("%w: update from missing %s neighbour", ErrTermination, side)
	}
	if seq <= g.taken[side] {
		return nil, false, nil
	}
	if g.state == StateTerminated {
		return nil, false, fmt.Errorf("%w: update %d from %s after termination", ErrTermination, seq, side)
	}
	g.taken[side] = seq
	g.state = StateActive
	switch {
	case !g.engaged:
		g.engaged, g.hasParent, g.parent = true, true, side
		out = g.emit(ActivityMsg{Kind: MsgActivate, Side: side, Seq: seq})
	case !g.hasParent || g.parent != side:
		out = g.emit(ActivityMsg{Kind: MsgAck, Side: side, Seq: seq})
	}
	return out, true, nil
}

// Passive records that the node's local test passed on the halos it holds
// and that it holds no unread update: it stops computing (state Inactive) and
// leaves the graph, or declares termination at the root, once its deficit is
// zero.
func (g *ActivityGraph) Passive() []ActivityMsg {
	if g.state == StateActive {
		g.state = StateInactive
	}
	return g.tryLeave()
}

// Control applies a control message received from side and returns the
// messages to send in reply.
func (g *ActivityGraph) Control(m ActivityMsg) ([]ActivityMsg, error) {
	if !g.valid(m.Side) {
		return nil, fmt.Errorf("%w: %s from missing %s neighbour", ErrTermination, m.Kind, m.Side)
	}
	switch m.Kind {
	case MsgActivate:
		if m.Seq > g.sent[m.Side] {
			return nil, fmt.Errorf("%w: activate for update %d, only %d sent to %s", ErrTermination, m.Seq, g.sent[m.Side], m.Side)
		}
		g.children[m.Side] = true
		return nil, nil
	case MsgInactivate, MsgAck:
		if m.Seq > g.sent[m.Side] {
			return nil, fmt.Errorf("%w: %s for update %d, only %d sent to %s", ErrTermination, m.Kind, m.Seq, g.sent[m.Side], m.Side)
		}
		g.acked[m.Side] = max(g.acked[m.Side], m.Seq)
		if m.Kind == MsgInactivate {
			g.children[m.Side] = false
		}
		return g.tryLeave(), nil
	case MsgTerminate:
		return g.terminate(m.Side)
	}
	return nil, fmt.Errorf("%w: unknown activity message %d from %s", ErrTermination, m.Kind, m.Side)
}

// terminate handles the termination message, which comes down the spanning
// tree: by the invariant, the node is out of the graph and inactive;
// anything else is a protocol violation. It is passed on to the tree's
// children.
func (g *ActivityGraph) terminate(from Side) ([]ActivityMsg, error) {
	if g.root || g.state != StateInactive || g.engaged || g.Deficit() {
		return nil, fmt.Errorf("%w: termination from %s reached a %s node (engaged %v, deficit %v)",
			ErrTermination, from, g.state, g.engaged, g.Deficit())
	}
	g.state = StateTerminated
	return g.terminateChildren(), nil
}

// terminateChildren returns the termination messages to the tree's
// children.
func (g *ActivityGraph) terminateChildren() []ActivityMsg {
	g.out = g.out[:0]
	for _, c := range g.treeKids {
		g.out = append(g.out, ActivityMsg{Kind: MsgTerminate, Side: c})
	}
	return g.out
}

// tryLeave leaves the graph (or terminates at the root) when the node is
// inactive with a zero deficit.
func (g *ActivityGraph) tryLeave() []ActivityMsg {
	if g.state != StateInactive || !g.engaged || g.Deficit() {
		return nil
	}
	if g.root {
		g.state = StateTerminated
		return g.terminateChildren()
	}
	g.engaged, g.hasParent = false, false
	return g.emit(ActivityMsg{Kind: MsgInactivate, Side: g.parent, Seq: g.taken[g.parent]})
}

// String describes the node's detector state, for diagnostics.
func (g *ActivityGraph) String() string {
	parent := "none"
	if g.hasParent {
		parent = g.parent.String()
	}
	return fmt.Sprintf("%s engaged=%v parent=%s children=%v sent=%v acked=%v taken=%v",
		g.state, g.engaged, parent, g.children, g.sent, g.acked, g.taken)
}
