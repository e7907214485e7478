package solve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// passiveWaitSlice bounds one blocking Wait of an inactive node, so that it
// still reports and notices a dead neighbour.
const passiveWaitSlice = 250 * time.Millisecond

// activityRun is the state of the asynchronous (and hybrid) scheme under the
// activity graph.
//
// A node iterates while its activity-graph state is Active. One iteration:
// take the newest halo of each asynchronous link (rmnp Receive with NoWait)
// and the pending control messages; sweep if a new plane arrived or the last
// local test failed, and always on a node with a synchronous link (below);
// send the planes that moved by ≥ ε since last sent (on a synchronous link of
// a hybrid run, a marker instead, so that the partner still gets exactly one
// message per iteration); receive one message from each synchronous link.
// Every plane and marker is an update of the activity graph
// (sequence-numbered, acknowledged), so a node is Active from the moment it
// takes one until it has processed it.
//
// Hybrid runs are synchronous inside a cluster: each iteration sends and
// receives exactly one message per synchronous link, so partners iterate in
// lockstep (never more than one iteration apart), and at termination, when no
// update is unread, they have done the same number of iterations. A node with
// a synchronous link therefore sweeps in every iteration, as the synchronous
// scheme does, so that Iterations (sweeps) count these lockstep iterations and
// are equal across a cluster (MaxIter cuts them at the same iteration too).
// A node that skipped the sweep when its local test held and only markers
// arrived fell hundreds of sweeps behind its partner over a run while both
// still exchanged one message per iteration (TestHybridActivityLockstep).
//
// The local test passes when the last sweep had σ < ε and no plane arrived
// after it; then the node calls Passive. Because it first sent every plane
// that moved by ≥ ε, each halo a neighbour holds is within ε of the node's
// values. With the activity graph's invariant (see ActivityGraph), termination
// at the root therefore means: every node's last sweep passed its local test on
// halos within ε of its neighbours' final values.
type activityRun struct {
	*solver
	g        *ActivityGraph
	lockstep bool // the node has a synchronous link: it sweeps every iteration
	localOK  bool
	newData  bool          // a plane arrived since the last sweep
	swept    bool          // the node swept in this step
	stale    int           // sweeps in a row on unchanged halos (see exhausted)
	pre      []bool        // a synchronous message was taken ahead of the iteration, by side
	pending  []ActivityMsg // control messages to send, acks coalesced
	// waitCtx bounds the blocking waits of an inactive node; it is renewed
	// only when it expires, not per wait (no allocation per iteration).
	waitCtx    context.Context
	waitCancel context.CancelFunc
}

func (s *solver) runActivity(ctx context.Context) error {
	_, parent, children := s.tree(0)
	g := NewActivityTree(len(s.links), parent, children)
	a := &activityRun{solver: s, g: g, pending: make([]ActivityMsg, 0, 8), pre: make([]bool, len(s.links))}
	for _, l := range s.links {
		a.lockstep = a.lockstep || l != nil && l.sync
	}
	defer func() {
		if a.waitCancel != nil {
			a.waitCancel()
		}
	}()
	err := a.loop(ctx)
	if err != nil && ctx.Err() != nil {
		// Whichever wait the context ended (a blocking synchronous receive, the
		// inactive wait), say where the detector stood: a run that hangs until
		// its deadline is diagnosed from these lines.
		err = fmt.Errorf("%w (activity graph: %s; local test %v, unswept plane %v, taken ahead %v, %d iterations)",
			err, g, a.localOK, a.newData, a.pre, s.iter)
	}
	return err
}

// loop runs the node until termination or an error.
func (a *activityRun) loop(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch a.g.State() {
		case StateTerminated:
			a.res.Converged = !a.exhausted()
			return a.flush(ctx)
		case StateActive:
			a.state = StateActive
			if err := a.iterate(ctx); err != nil {
				return err
			}
		default:
			a.state = StateInactive
			if err := a.waitInactive(ctx); err != nil {
				return err
			}
		}
	}
}

// iterate runs one iteration of an Active node (see activityRun).
func (a *activityRun) iterate(ctx context.Context) error {
	if err := a.takeAsync(); err != nil {
		return err
	}
	if err := a.drainCtrl(); err != nil {
		return err
	}
	switch {
	case a.exhausted():
		a.localOK, a.newData = true, false // MaxIter: this node stops computing
	case a.newData || !a.localOK || a.lockstep:
		fresh := a.newData || a.lockstep || !a.swept
		a.newData, a.swept = false, true
		a.localOK = a.sweep() < a.eps
		if fresh {
			a.counted, a.stale = a.counted+1, 0
		} else {
			a.stale++
		}
	}
	if err := a.sendPlanes(ctx); err != nil {
		return err
	}
	if err := a.receiveSync(ctx); err != nil {
		return err
	}
	if a.localOK && !a.newData {
		a.queue(a.g.Passive())
	}
	runtime.Gosched() // let rmnp's goroutines move the halos (see switchRun)
	return a.flush(ctx)
}

// exhausted reports whether the node reached the iteration limit. On an
// asynchronous node (no synchronous link) the limit counts the sweeps on new
// halos, not the sweeps on unchanged ones: a small part whose neighbours are
// slow (another host, a loaded machine) sweeps many times per update it
// receives, each time until its local test holds again, and counting those
// stopped a run whose neighbours were still converging (a rod's 8-point end
// segment, 200000 sweeps, on 4 hosts). Sweeps in a row on unchanged halos
// are bounded by the limit too, so that a part whose local test never holds
// on fixed halos still stops. A node with a synchronous link counts every
// sweep, so that the limit cuts the partners of a cluster at the same
// iteration.
func (a *activityRun) exhausted() bool {
	return a.maxIter > 0 && (a.counted >= a.maxIter || a.stale >= a.maxIter)
}

// takeAsync takes the newest halo of each asynchronous link, if any.
func (a *activityRun) takeAsync() error {
	for _, l := range a.links {
		if l == nil || l.sync {
			continue
		}
		for {
			n, err := a.ep.ReceiveFloat64s(context.Background(), l.peer, l.in, rmnp.DATA|rmnp.NoWait)
			if errors.Is(err, rmnp.ErrNoMessage) {
				break
			}
			if errors.Is(err, rmnp.ErrShortBuffer) {
				return WrapErr(a.haloMismatch(l, l.nIn+1), "halo from rank %d", l.rank)
			}
			if err != nil {
				return WrapErr(err, "halo from rank %d", l.rank)
			}
			if err := a.takeHalo(l, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeHalo applies the halo message in l.in (n values): a fresh plane goes
// into the slab's halo, and every fresh message is an activity-graph update.
func (a *activityRun) takeHalo(l *link, n int) error {
	if n < haloHeader {
		return WrapErr(fmt.Errorf("%w: %d values", errWire, n), "halo from rank %d", l.rank)
	}
	seq, kind := haloHeaderOf(l.in)
	switch {
	case kind == haloPlane && n == haloHeader+l.nIn:
	case kind == haloMarker && n == haloHeader:
	default:
		return WrapErr(fmt.Errorf("%w: kind %d with %d values", errWire, kind, n), "halo from rank %d", l.rank)
	}
	out, fresh, err := a.g.Update(l.side, seq)
	if err != nil {
		return WrapErr(err, "update from rank %d", l.rank)
	}
	a.queue(out)
	if fresh && kind == haloPlane {
		_, halo := a.planes(l)
		copy(halo, l.in[haloHeader:n])
		a.received(l)
		a.newData = true
	}
	return nil
}

// drainCtrl applies every buffered control message.
func (a *activityRun) drainCtrl() error {
	for _, l := range a.links {
		if l == nil {
			continue
		}
		for {
			m, err := a.recvCtrl(context.Background(), l.side, rmnp.NoWait)
			if errors.Is(err, rmnp.ErrNoMessage) {
				break
			}
			if err != nil {
				return err
			}
			if err := a.control(l, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// control applies one control message from l.
func (a *activityRun) control(l *link, m ctrlMsg) error {
	k, ok := m.kind.activity()
	if !ok {
		return fmt.Errorf("%w: control kind %d from rank %d in an activity-graph run", ErrTermination, m.kind, l.rank)
	}
	out, err := a.g.Control(ActivityMsg{Kind: k, Side: l.side, Seq: m.seq})
	if err != nil {
		return WrapErr(err, "control message from rank %d", l.rank)
	}
	a.queue(out)
	return nil
}

// sendPlanes sends, on each link, the plane if it moved by ≥ ε since it was
// last sent (or never was), else a marker on a synchronous link.
func (a *activityRun) sendPlanes(ctx context.Context) error {
	start := time.Now()
	defer timed(&a.res.Send, start)
	for _, l := range a.links {
		if l == nil {
			continue
		}
		own, _ := a.planes(l)
		if len(own) != l.nOut {
			return l.outgoingChanged(a.solver, len(own))
		}
		moved := !l.ever || drift(own, l.sent, a.eps)
		if !moved && !l.sync {
			continue
		}
		seq, err := a.g.Send(l.side)
		if err != nil {
			return err
		}
		msg := l.out[:haloHeader]
		kind := uint64(haloMarker)
		if moved {
			kind = haloPlane
			msg = l.out[:haloHeader+l.nOut]
			copy(msg[haloHeader:], own)
			if l.sent == nil {
				l.sent = make([]float64, l.nOut)
			}
			copy(l.sent, own)
			l.ever = true
		}
		setHaloHeader(msg, seq, kind)
		if a.t.hooks != nil && a.t.hooks.beforeSend != nil {
			a.t.hooks.beforeSend(l.rank)
		}
		if err := a.ep.SendFloat64s(ctx, l.peer, msg, rmnp.DATA); err != nil {
			return WrapErr(err, "halo to rank %d", l.rank)
		}
	}
	return nil
}

// drift reports whether some value of v differs from ref by ≥ eps.
func drift(v, ref []float64, eps float64) bool {
	ref = ref[:len(v)]
	for i, x := range v {
		if d := x - ref[i]; d >= eps || -d >= eps {
			return true
		}
	}
	return false
}

// receiveSync takes one message from each synchronous link (unless it was
// taken ahead, by waitInactive).
func (a *activityRun) receiveSync(ctx context.Context) error {
	start := time.Now()
	defer timed(&a.res.Wait, start)
	for _, l := range a.links {
		if l == nil || !l.sync {
			continue
		}
		if a.pre[l.side] {
			a.pre[l.side] = false
			continue
		}
		n, err := a.ep.ReceiveFloat64s(ctx, l.peer, l.in, rmnp.DATA)
		if err != nil {
			return WrapErr(err, "halo from rank %d", l.rank)
		}
		if err := a.takeHalo(l, n); err != nil {
			return err
		}
	}
	return nil
}

// waitInactive blocks an Inactive node until a message arrives (GRID_Wait):
// control messages are applied, an asynchronous halo is taken (and
// reactivates the node), a synchronous one is taken ahead of the iteration it
// belongs to.
func (a *activityRun) waitInactive(ctx context.Context) error {
	slice := passiveWaitSlice
	if h := a.t.hooks; h != nil && h.idleWait > 0 {
		slice = h.idleWait
	}
	for a.g.State() == StateInactive {
		if a.waitCtx == nil || a.waitCtx.Err() != nil {
			if a.waitCancel != nil {
				a.waitCancel()
			}
			a.waitCtx, a.waitCancel = context.WithTimeout(ctx, slice)
		}
		start := time.Now()
		src, kind, err := a.ep.Wait(a.waitCtx)
		a.res.Wait += time.Since(start)
		a.maybeReport(time.Now())
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if h := a.t.hooks; h != nil && h.afterIdleWait != nil {
				h.afterIdleWait()
			}
			// A control message that arrived since the wait ended is
			// applied here, and what it makes the node send (the
			// Inactivate of a node whose last update was just
			// acknowledged) must go now: no other message may ever come
			// to flush it, and its parent would wait for it forever.
			if err := a.drainCtrl(); err != nil { // notices a dead neighbour
				return err
			}
			if err := a.flush(ctx); err != nil {
				return err
			}
			continue
		}
		l := a.linkOf(src)
		switch {
		case l == nil:
			return fmt.Errorf("engine: message from peer %d, not a neighbour", src)
		case kind&rmnp.CTRL != 0:
			if err := a.drainCtrl(); err != nil {
				return err
			}
		case l.sync:
			n, err := a.ep.ReceiveFloat64s(ctx, l.peer, l.in, rmnp.DATA)
			if err != nil {
				return WrapErr(err, "halo from rank %d", l.rank)
			}
			a.pre[l.side] = true
			if err := a.takeHalo(l, n); err != nil {
				return err
			}
		default:
			if err := a.takeAsync(); err != nil {
				return err
			}
		}
		if err := a.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (a *activityRun) linkOf(p rmnp.PeerID) *link {
	for _, l := range a.links {
		if l != nil && l.peer == p {
			return l
		}
	}
	return nil
}

// queue adds control messages to send, coalescing acknowledgements.
func (a *activityRun) queue(out []ActivityMsg) {
	for _, m := range out {
		if m.Kind == MsgAck {
			merged := false
			for i := range a.pending {
				if p := &a.pending[i]; p.Kind == MsgAck && p.Side == m.Side {
					p.Seq, merged = max(p.Seq, m.Seq), true
				}
			}
			if merged {
				continue
			}
		}
		a.pending = append(a.pending, m)
	}
}

// flush sends the queued control messages in order.
func (a *activityRun) flush(ctx context.Context) error {
	for _, m := range a.pending {
		msg := encodeCtrl(a.ctrlOut, m.Kind.ctrl(), m.Seq, 0, nil)
		if err := a.sendCtrl(ctx, m.Side, msg); err != nil {
			return err
		}
	}
	a.pending = a.pending[:0]
	return nil
}
