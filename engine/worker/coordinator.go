package worker

import (
	"context"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
	"log/slog"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// postTimeout bounds a control send that someone waits for (a worker's
// failure report, which its end of run waits on): a stopped parent must
// not hold it longer than the detector takes to name that parent.
const postTimeout = ParentTimeout

// BeatTimeout bounds a background control send (heartbeat, status, abort).
// rmnp cuts a link whose send times out mid-frame, and the peer takes that
// for this node's failure; on an overloaded machine a write can stall as
// long as the process is not scheduled. So a background send gives up only
// long after the detector has named a peer that is really gone: liveness is
// the detector's to judge, not a send's.
const BeatTimeout = time.Minute

// coordState is the coordinator role of a node (GRIDHPC Sec. IV-B): it
// forwards sub-tasks to the workers of its group (at most 32), aggregates
// their telemetry and sends it up at most 10 times a second, forwards their
// results, and watches them with heartbeats.
type coordState struct {
	assign GroupAssign
	cancel context.CancelFunc

	up upQueue // messages forwarded to the submitter, in order

	mu       sync.Mutex
	children map[rmnp.PeerID]string
	statuses map[string]solve.NodeStatus
	changed  map[string]bool // members whose status changed since the last send
	lastSent time.Time
	lastBeat time.Time
	// Start-up (heartbeat.go): via is the child each node of the subtree
	// is reached through, starting how many nodes below each child still
	// start; runStarted that the parent said the whole run has started.
	via        map[string]rmnp.PeerID
	starting   map[rmnp.PeerID]int
	runStarted bool
}

func (c *coordState) stop() { c.cancel() }

func (c *coordState) childName(id rmnp.PeerID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, ok := c.children[id]
	return name, ok
}

// coordinate is "forward sub-tasks": connect to every member's control
// endpoint, send it its task, forward the assignments of the coordinators
// below (a coordinator of coordinators), and start this node's own task.
func (n *node) coordinate(ctx context.Context, src rmnp.PeerID, a GroupAssign) error {
	if src != a.Parent {
		return fmt.Errorf("%w: assignment from peer %d, not its parent %d", ErrProtocol, src, a.Parent)
	}
	if len(a.Members) == 0 || len(a.Members) > jobs.MaxGroupSize || len(a.Subgroups) > jobs.MaxGroupSize {
		return fmt.Errorf("%w: group of %d workers and %d coordinators", ErrProtocol, len(a.Members), len(a.Subgroups))
	}
	cctx, cancel := context.WithCancel(ctx)
	c := newCoordState(a, n.boot.Node, cancel)
	var own *Member
	for i, m := range a.Members {
		if m.Node == n.boot.Node {
			own = &a.Members[i]
		}
	}
	n.mu.Lock()
	if n.coord != nil && n.coord.assign.Run != a.Run {
		old := n.coord.assign.Run
		n.mu.Unlock()
		n.endRun(old, "superseded by a new run")
		n.mu.Lock()
	}
	if n.coord != nil {
		n.mu.Unlock()
		cancel()
		return fmt.Errorf("engine: worker %s already coordinates group %d", n.boot.Node, n.coord.assign.Group)
	}
	n.coord = c
	n.mu.Unlock()
	n.live.WatchStarting(a.Parent, parentName(a.Parent), parentLimits)
	go n.forwardTasks(cctx, c)
	go c.up.run(cctx, n, a.Parent)
	if own != nil {
		return n.startTask(ctx, n.self, own.Task)
	}
	return nil
}

// newCoordState is the coordinator role of node self for assignment a:
// its children (members other than itself, coordinators below) and the
// nodes of its subtree, all starting.
func newCoordState(a GroupAssign, self string, cancel context.CancelFunc) *coordState {
	c := &coordState{assign: a, cancel: cancel, children: map[rmnp.PeerID]string{}, statuses: map[string]solve.NodeStatus{},
		changed: map[string]bool{}, up: newUpQueue(), via: map[string]rmnp.PeerID{}, starting: map[rmnp.PeerID]int{}}
	a.Subtree(func(m Member, group int) {
		c.statuses[m.Node] = solve.NodeStatus{Node: m.Node, Rank: m.Task.Rank, Group: group, State: solve.StateStarting, Run: a.Run}
	})
	for _, m := range a.Members {
		if m.Node != self {
			c.children[m.Peer] = m.Node
			c.via[m.Node] = m.Peer
			c.starting[m.Peer]++
		}
	}
	for _, sub := range a.Subgroups {
		id := NodeID(sub.Assign.Coordinator)
		c.children[id] = sub.Assign.Coordinator
		sub.Assign.Subtree(func(m Member, _ int) {
			c.via[m.Node] = id
			c.starting[id]++
		})
	}
	return c
}

// forwardTasks connects to the group's workers and to the coordinators
// below (forwardWidth at a time) and sends each its task or assignment; one
// that cannot be reached is reported failed.
func (n *node) forwardTasks(ctx context.Context, c *coordState) {
	var g errgroup.Group
	g.SetLimit(ForwardWidth)
	forward := func(node string, ctrl []string, t MsgType, body any) {
		g.Go(func() error {
			peer := NodeID(node)
			_, err := ConnectCtrl(ctx, n.ctrl, peer, ctrl)
			if err == nil {
				n.live.WatchStarting(peer, node, ChildLimits)
				var msg []byte
				if msg, err = EncodeMsg(t, body); err == nil {
					err = n.sendWhole(ctx, peer, msg) // the attempt's end must not cut the member's link
				}
			}
			if err != nil && ctx.Err() == nil {
				n.reportFailure(ctx, node, fmt.Sprintf("coordinator %s cannot reach it at %v: %v", n.boot.Node, ctrl, err))
			}
			return nil
		})
	}
	for _, m := range c.assign.Members {
		if m.Node != n.boot.Node {
			forward(m.Node, m.Ctrl, MsgTask, m.Task)
		}
	}
	for _, sub := range c.assign.Subgroups {
		forward(sub.Assign.Coordinator, sub.Ctrl, MsgAssign, sub.Assign)
	}
	g.Wait()
}

// fromChild handles a message a member (or this node's own worker role)
// sends up: statuses are aggregated, the rest is forwarded to the submitter.
func (n *node) fromChild(ctx context.Context, src rmnp.PeerID, t MsgType, body, raw []byte) error {
	n.mu.Lock()
	c := n.coord
	n.mu.Unlock()
	if c == nil {
		if t == MsgStatus {
			return nil // a member's last status, after the run ended here
		}
		return fmt.Errorf("engine: %s from peer %d but %s coordinates no group", t, src, n.boot.Node)
	}
	if src != n.self {
		if _, ok := c.childName(src); !ok {
			return fmt.Errorf("%w: %s from peer %d, not a member", ErrProtocol, t, src)
		}
	}
	switch t {
	case MsgStatus:
		var ss []solve.NodeStatus
		if err := DecodeBody(t, body, &ss); err != nil {
			return err
		}
		ss = slices.DeleteFunc(ss, func(s solve.NodeStatus) bool { return s.Run != c.assign.Run })
		for _, id := range c.merge(ss) {
			n.live.StartedPeer(id)
		}
		return nil
	case MsgFailed:
		var f Failure
		if err := DecodeBody(t, body, &f); err != nil {
			return err
		}
		if f.Run != c.assign.Run {
			return nil // a late failure of the attempt before
		}
		c.markFailed(f.Node, f.Cause)
	case MsgResult:
		var h ResultHeader
		if err := DecodeBody(t, body, &h); err != nil {
			return err
		}
		if h.Run != c.assign.Run {
			return nil
		}
	case MsgValues:
		if ValuesRun(raw) != c.assign.Run {
			return nil
		}
	case MsgDrain:
		var d DrainRequest
		if err := DecodeBody(t, body, &d); err != nil {
			return err
		}
		if d.Run != c.assign.Run {
			return nil
		}
	}
	c.up.push(raw)
	return nil
}

// upQueue holds the messages a coordinator forwards to its parent. The
// receive loop only queues them: a send blocked on a busy parent must not
// stop it from reading (and so from hearing) the other members.
type upQueue struct {
	mu    sync.Mutex
	items [][]byte
	ready chan struct{}
}

func newUpQueue() upQueue { return upQueue{ready: make(chan struct{}, 1)} }

// push queues a copy of m.
func (q *upQueue) push(m []byte) {
	q.mu.Lock()
	q.items = append(q.items, slices.Clone(m))
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// run sends the queued messages to parent, in order, until ctx ends.
func (q *upQueue) run(ctx context.Context, n *node, parent rmnp.PeerID) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.ready:
		}
		q.mu.Lock()
		items := q.items
		q.items = nil
		q.mu.Unlock()
		for _, m := range items {
			if err := n.sendWhole(ctx, parent, m); err != nil { // a forwarded result may be large: never cut
				if ctx.Err() == nil {
					n.log.Warn("engine: forward to parent failed", "err", err)
				}
				return
			}
		}
	}
}

// merge takes the members' statuses, never going back in iterations nor
// past a final state. It returns the children whose whole subtree has now
// left the starting state: their start-up is over.
func (c *coordState) merge(ss []solve.NodeStatus) (started []rmnp.PeerID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range ss {
		old, ok := c.statuses[s.Node]
		if ok && old.State != solve.StateFailed && old.State != solve.StateTerminated && s.Iteration >= old.Iteration {
			c.statuses[s.Node], c.changed[s.Node] = s, true
			if id, below := c.via[s.Node]; below && old.State == solve.StateStarting && s.State != solve.StateStarting {
				if c.starting[id]--; c.starting[id] == 0 {
					started = append(started, id)
				}
			}
		}
	}
	return started
}

// parentStarted records that the parent said the whole run has started;
// the heartbeats down say it from then on.
func (c *coordState) parentStarted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runStarted = true
}

func (c *coordState) markFailed(node, cause string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.statuses[node]
	s.Node, s.State, s.Err, s.Run = node, solve.StateFailed, cause, c.assign.Run
	c.statuses[node], c.changed[node] = s, true
}

// reportFailure tells the parent (and so the submitter) that a member
// failed.
func (n *node) reportFailure(ctx context.Context, node, cause string) {
	n.mu.Lock()
	c := n.coord
	n.mu.Unlock()
	if c == nil {
		return
	}
	c.markFailed(node, cause)
	n.runLog(c.assign.Run).Warn("engine: worker failed", "worker", node, "cause", cause)
	if m, err := EncodeMsg(MsgFailed, Failure{Node: node, Cause: cause, Run: c.assign.Run}); err == nil {
		n.post(ctx, c.assign.Parent, m)
	}
}

// tickCoord sends the group's aggregated telemetry to the parent (at most
// 10 Hz, or a heartbeat) and heartbeats to the members and the
// coordinators below. Only the
// statuses that changed since the last send go up: the submitter's fan-in
// is at most 10 messages a second per group, of at most a group's rows.
func (n *node) tickCoord(ctx context.Context, now time.Time) {
	n.mu.Lock()
	c := n.coord
	n.mu.Unlock()
	if c == nil {
		return
	}
	up, beat, started := c.due(now)
	if up != nil {
		n.post(ctx, c.assign.Parent, up)
	}
	for _, id := range beat {
		n.post(ctx, id, HeartbeatMsg(started))
	}
}

// due returns what the coordinator sends at now: the message up (the
// changed statuses, a heartbeat, or nil), the members to send a heartbeat
// to, and whether those heartbeats say that the run has started.
func (c *coordState) due(now time.Time) (up []byte, beat []rmnp.PeerID, started bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	started = c.runStarted
	switch {
	case len(c.changed) > 0:
		batch := make([]solve.NodeStatus, 0, len(c.changed))
		for node := range c.changed {
			batch = append(batch, c.statuses[node])
		}
		slices.SortFunc(batch, func(a, b solve.NodeStatus) int { return a.Rank - b.Rank })
		up, _ = EncodeMsg(MsgStatus, batch)
		clear(c.changed)
	case now.Sub(c.lastSent) >= HeartbeatInterval:
		up = []byte{byte(MsgHeartbeat)}
	}
	if up != nil {
		c.lastSent = now
	}
	if now.Sub(c.lastBeat) >= DownInterval {
		c.lastBeat = now
		for id := range c.children {
			beat = append(beat, id)
		}
	}
	return up, beat, started
}

// post sends a control message in the background (m is copied), bounded by
// beatTimeout, so that a stopped or slow peer never blocks the caller.
func (n *node) post(ctx context.Context, peer rmnp.PeerID, m []byte) {
	if peer == n.self {
		n.send(ctx, peer, m)
		return
	}
	m = slices.Clone(m)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), BeatTimeout)
		defer cancel()
		if err := n.ctrl.Send(ctx, peer, m, rmnp.CTRL); err != nil {
			// A link that went down or an endpoint that closed is the end
			// of a run; anything else (a send that timed out) is news.
			level := slog.LevelWarn
			if errors.Is(err, rmnp.ErrClosed) || errors.Is(err, rmnp.ErrPeerClosed) || errors.Is(err, rmnp.ErrPeerDown) {
				level = slog.LevelDebug
			}
			n.log.Log(ctx, level, "engine: control send failed", "peer", peer, "err", err)
		}
	}()
}
