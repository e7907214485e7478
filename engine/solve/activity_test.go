package solve

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// simNode is one rank of the abstract asynchronous computation driven by
// simulate: work is the number of sweeps left before its local test passes.
type simNode struct {
	g      *ActivityGraph
	work   int
	unread [2]uint64 // latest-value buffer per side (0: empty)
}

// simChain is an abstract chain of ranks with latest-value DATA and FIFO CTRL
// links, in which every delivery order can be chosen by a scheduler.
type simChain struct {
	t        *testing.T
	nodes    []*simNode
	inflight [][2][]uint64      // DATA in flight to node i from side s
	ctrl     [][2][]ActivityMsg // CTRL in flight to node i from side s
	budget   int                // updates that may still be sent
	rng      *rand.Rand
}

func newSimChain(t *testing.T, ranks, budget int, rng *rand.Rand) *simChain {
	c := &simChain{t: t, budget: budget, rng: rng,
		inflight: make([][2][]uint64, ranks), ctrl: make([][2][]ActivityMsg, ranks)}
	for r := range ranks {
		g, err := NewActivityGraph(r, ranks)
		if err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, &simNode{g: g, work: 1 + rng.IntN(3)})
	}
	return c
}

func neighbourOf(r int, s Side) int {
	if s == Lower {
		return r - 1
	}
	return r + 1
}

// post delivers the control messages out of node r to their destinations.
func (c *simChain) post(r int, out []ActivityMsg) {
	for _, m := range out {
		d := neighbourOf(r, m.Side)
		from := m.Side.other()
		m.Side = from
		c.ctrl[d][from] = append(c.ctrl[d][from], m)
	}
}

// sendUpdate sends an update from r to side s; a queued older update may be
// dropped (the AIAC skip rule).
func (c *simChain) sendUpdate(r int, s Side) {
	seq, err := c.nodes[r].g.Send(s)
	if err != nil {
		c.t.Fatal(err)
	}
	d, from := neighbourOf(r, s), s.other()
	q := c.inflight[d][from]
	if len(q) > 1 && c.rng.IntN(2) == 0 {
		q = q[:len(q)-1] // replaced while the previous one is in flight
	}
	c.inflight[d][from] = append(q, seq)
	c.budget--
}

type simEvent struct {
	kind int // 0 step, 1 data arrives, 2 ctrl arrives
	node int
	side Side
}

func (c *simChain) events() []simEvent {
	var ev []simEvent
	for r, n := range c.nodes {
		if n.g.State() != StateTerminated && (n.g.State() == StateActive || n.unread != [2]uint64{}) {
			ev = append(ev, simEvent{0, r, 0})
		}
		for s := Lower; s <= Upper; s++ {
			if len(c.inflight[r][s]) > 0 {
				ev = append(ev, simEvent{1, r, s})
			}
			if len(c.ctrl[r][s]) > 0 {
				ev = append(ev, simEvent{2, r, s})
			}
		}
	}
	return ev
}

// apply runs one event and reports a protocol error.
func (c *simChain) apply(e simEvent) error {
	n := c.nodes[e.node]
	switch e.kind {
	case 1:
		q := c.inflight[e.node][e.side]
		n.unread[e.side] = max(n.unread[e.side], q[0]) // a newer update replaces an unread one
		c.inflight[e.node][e.side] = q[1:]
	case 2:
		q := c.ctrl[e.node][e.side]
		c.ctrl[e.node][e.side] = q[1:]
		out, err := n.g.Control(q[0])
		if err != nil {
			return err
		}
		c.post(e.node, out)
	default:
		return c.step(e.node)
	}
	return nil
}

// step is one iteration of node r: take unread updates, else sweep (maybe
// sending updates), else declare the local test passed.
func (c *simChain) step(r int) error {
	n := c.nodes[r]
	for s := Lower; s <= Upper; s++ {
		if seq := n.unread[s]; seq != 0 {
			n.unread[s] = 0
			out, fresh, err := n.g.Update(s, seq)
			if err != nil {
				return err
			}
			if fresh {
				n.work += c.rng.IntN(3)
			}
			c.post(r, out)
			return nil
		}
	}
	if n.work > 0 {
		n.work--
		for s := Lower; s <= Upper; s++ {
			if n.g.has[s] && c.budget > 0 && c.rng.IntN(2) == 0 {
				c.sendUpdate(r, s)
			}
		}
		return nil
	}
	c.post(r, n.g.Passive())
	return nil
}

// checkSafe asserts what root termination promises: nobody computing or
// holding an unread update, nothing in flight but termination messages.
func (c *simChain) checkSafe() {
	c.t.Helper()
	for r, n := range c.nodes {
		if n.g.State() == StateActive || n.work > 0 || n.unread != [2]uint64{} {
			c.t.Fatalf("root terminated while rank %d is %s with work %d unread %v", r, n.g.State(), n.work, n.unread)
		}
		for s := Lower; s <= Upper; s++ {
			if len(c.inflight[r][s]) > 0 {
				c.t.Fatalf("root terminated with updates %v in flight to rank %d", c.inflight[r][s], r)
			}
			for _, m := range c.ctrl[r][s] {
				if m.Kind != MsgTerminate {
					c.t.Fatalf("root terminated with %s in flight to rank %d", m.Kind, r)
				}
			}
		}
	}
}

func (c *simChain) run() {
	c.t.Helper()
	checked := false
	for i := 0; ; i++ {
		if i > 1e6 {
			c.t.Fatal("simulation does not end")
		}
		if !checked && c.nodes[0].g.State() == StateTerminated {
			c.checkSafe()
			checked = true
		}
		ev := c.events()
		if len(ev) == 0 {
			break
		}
		if err := c.apply(ev[c.rng.IntN(len(ev))]); err != nil {
			c.t.Fatal(err)
		}
	}
	for r, n := range c.nodes {
		if n.g.State() != StateTerminated {
			c.t.Fatalf("deadlock: rank %d is %s (engaged %v deficit %v)", r, n.g.State(), n.g.Engaged(), n.g.Deficit())
		}
	}
}

// TestActivityGraphRandomInterleavings explores many delivery orders of
// updates (with replacement and skipping), acknowledgements and activity
// messages on chains of 1–6 ranks: termination is always declared, never
// while a rank computes or an update is in flight.
func TestActivityGraphRandomInterleavings(t *testing.T) {
	for ranks := 1; ranks <= 6; ranks++ {
		for seed := range uint64(600) {
			rng := rand.New(rand.NewPCG(seed, uint64(ranks)))
			c := newSimChain(t, ranks, 5+rng.IntN(40), rng)
			c.run()
		}
	}
}

func mustGraph(t *testing.T, rank, ranks int) *ActivityGraph {
	t.Helper()
	g, err := NewActivityGraph(rank, ranks)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestActivityGraphScripted replays interleavings that matter one by one.
func TestActivityGraphScripted(t *testing.T) {
	tests := map[string]func(t *testing.T){
		"single rank terminates when passive": func(t *testing.T) {
			g := mustGraph(t, 0, 1)
			if out := g.Passive(); len(out) != 0 || g.State() != StateTerminated {
				t.Fatalf("got %v, state %s", out, g.State())
			}
		},
		"root waits for the initial child": func(t *testing.T) {
			g := mustGraph(t, 0, 2)
			if g.Passive(); g.State() != StateInactive {
				t.Fatalf("root terminated with an engaged child: %s", g.State())
			}
			out, err := g.Control(ActivityMsg{Kind: MsgInactivate, Side: Upper, Seq: 1})
			if err != nil || len(out) != 1 || out[0].Kind != MsgTerminate || g.State() != StateTerminated {
				t.Fatalf("got %v %v %s", out, err, g.State())
			}
		},
		"reactivation after the local test passed": func(t *testing.T) {
			g := mustGraph(t, 1, 3)
			g.Passive() // deficit to rank 2 keeps it engaged
			if g.State() != StateInactive || !g.Engaged() {
				t.Fatalf("state %s engaged %v", g.State(), g.Engaged())
			}
			out, fresh, err := g.Update(Upper, 2)
			if err != nil || !fresh || g.State() != StateActive {
				t.Fatalf("update did not reactivate: %v %v %s", fresh, err, g.State())
			}
			if len(out) != 1 || out[0] != (ActivityMsg{Kind: MsgAck, Side: Upper, Seq: 2}) {
				t.Fatalf("non-parent update not acknowledged: %v", out)
			}
		},
		"in-flight update blocks leaving": func(t *testing.T) {
			g := mustGraph(t, 1, 2)
			seq, err := g.Send(Lower)
			if err != nil {
				t.Fatal(err)
			}
			if out := g.Passive(); len(out) != 0 {
				t.Fatalf("left the graph with an unacknowledged update: %v", out)
			}
			out, err := g.Control(ActivityMsg{Kind: MsgAck, Side: Lower, Seq: seq})
			if err != nil || len(out) != 1 || out[0] != (ActivityMsg{Kind: MsgInactivate, Side: Lower, Seq: 1}) {
				t.Fatalf("got %v %v", out, err)
			}
		},
		"replaced updates are covered by a cumulative ack": func(t *testing.T) {
			g := mustGraph(t, 0, 2)
			for range 3 {
				if _, err := g.Send(Upper); err != nil {
					t.Fatal(err)
				}
			}
			g.Passive()
			if _, err := g.Control(ActivityMsg{Kind: MsgInactivate, Side: Upper, Seq: 4}); err != nil {
				t.Fatal(err)
			}
			if g.State() != StateTerminated {
				t.Fatalf("state %s after cumulative inactivate", g.State())
			}
		},
		"disengaged node joins under the sender": func(t *testing.T) {
			g := mustGraph(t, 1, 2)
			g.Passive()
			if g.Engaged() {
				t.Fatal("still engaged")
			}
			out, _, err := g.Update(Lower, 2)
			if p, ok := g.Parent(); err != nil || !ok || p != Lower || len(out) != 1 || out[0].Kind != MsgActivate {
				t.Fatalf("got %v %v parent %v %v", out, err, p, ok)
			}
		},
		"stale update changes nothing": func(t *testing.T) {
			g := mustGraph(t, 1, 2)
			g.Passive()
			if out, fresh, err := g.Update(Lower, 1); fresh || err != nil || len(out) != 0 || g.State() != StateInactive {
				t.Fatalf("stale update: %v %v %v %s", out, fresh, err, g.State())
			}
		},
		"termination to an active node is a violation": func(t *testing.T) {
			g := mustGraph(t, 1, 2)
			if _, err := g.Control(ActivityMsg{Kind: MsgTerminate, Side: Lower}); !errors.Is(err, ErrTermination) {
				t.Fatalf("err %v", err)
			}
		},
		"ack beyond what was sent is a violation": func(t *testing.T) {
			g := mustGraph(t, 0, 2)
			if _, err := g.Control(ActivityMsg{Kind: MsgAck, Side: Upper, Seq: 9}); !errors.Is(err, ErrTermination) {
				t.Fatalf("err %v", err)
			}
		},
		"inactive node does not send": func(t *testing.T) {
			g := mustGraph(t, 0, 2)
			g.Passive()
			if _, err := g.Send(Upper); !errors.Is(err, ErrTermination) {
				t.Fatalf("err %v", err)
			}
		},
	}
	for name, tc := range tests {
		t.Run(name, tc)
	}
}

func ExampleActivityGraph() {
	root, _ := NewActivityGraph(0, 2)
	leaf, _ := NewActivityGraph(1, 2)
	seq, _ := root.Send(Upper) // root sends an update
	root.Passive()             // root's local test passes: it waits for its child
	out, _, _ := leaf.Update(Lower, seq)
	fmt.Println(len(out), root.State()) // update from the parent: acknowledgement deferred
	out = leaf.Passive()                // leaf's local test passes
	fmt.Println(out[0].Kind, out[0].Seq)
	out, _ = root.Control(ActivityMsg{Kind: out[0].Kind, Side: Upper, Seq: out[0].Seq})
	fmt.Println(out[0].Kind, root.State())
	// Output:
	// 0 inactive
	// inactivate 2
	// terminate terminated
}
