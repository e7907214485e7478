package solve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// switchRun is a run under the AIAC chapter's detector (any scheme; on
// synchronous links the neighbours exchange every round in lockstep, see
// lockstep):
// asynchronous iterations (newest halos, every plane sent; rmnp skips a send
// while the previous one is in flight) until the local timer is due, then a
// synchronous section p: two iterations whose halos travel as CTRL messages
// (reliable, in order, never replaced — the chapter's SYNC stamp), then the
// conjunction of the second iteration's local tests is reduced along the
// chain (like tok_conv) and the decision sent back (like tok_term). A node
// enters section p when its timer is due or when a neighbour's first section-p
// halo arrives, whichever is first, so one due timer pulls the whole chain in.
//
// Halos carry the per-link sequence number of the plane; a node takes a halo
// only if its number is above the last one taken, so an asynchronous halo
// sent before a section never overwrites the section's newer one.
type switchRun struct {
	*solver
	timer   *SwitchTimer
	section uint64
	sentSeq []uint64 // by side
	pre     []bool   // first halo of the section already received, by side
	// The section's votes go up the spanning tree rooted at the last rank,
	// its decision comes down.
	parent   Side
	children []Side
	// With synchronous links (hybrid, or the synchronous scheme) the
	// neighbours on them iterate in lockstep: round counts their exchanges,
	// and request is the round at which the section starts, 0 if none.
	hasSync bool
	round   int
	request int
	// sectionCost is how long the last section took: a node calls the next
	// one on its own local test only sectionCallRatio times that later.
	sectionCost time.Duration
}

func (s *solver) runSwitch(ctx context.Context) error {
	w := &switchRun{solver: s, timer: NewSwitchTimer(s.t.SwitchPeriod, time.Now()),
		sentSeq: make([]uint64, len(s.links)), pre: make([]bool, len(s.links))}
	_, w.parent, w.children = s.tree(s.t.Ranks - 1)
	for _, l := range s.links {
		w.hasSync = w.hasSync || l != nil && l.sync
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		enter, err := w.sectionCalled()
		if err != nil {
			return err
		}
		if w.hasSync {
			stop, err := w.lockstep(ctx, enter)
			if err != nil || stop {
				return err
			}
			continue
		}
		if enter || w.timer.Due(time.Now()) || w.locallyDone(time.Now()) || s.exhausted() {
			began := time.Now()
			stop, err := w.runSection(ctx)
			w.sectionCost = time.Since(began)
			if err != nil || stop {
				return err
			}
			continue
		}
		took, err := w.takeNewest()
		if err != nil {
			return err
		}
		if !took && s.sigma >= 0 && s.sigma < s.eps {
			// Nothing new and the local test holds: another sweep would change
			// nothing that matters, so wait for a halo or the timer instead of
			// burning the core the communication goroutines need.
			if err := w.idle(ctx); err != nil {
				return err
			}
			continue
		}
		s.sweep()
		if err := w.sendAsync(ctx); err != nil {
			return err
		}
		// Let rmnp's reader and writer goroutines run: without this a spinning
		// solver starves them until the scheduler preempts it (~10 ms), and the
		// asynchronous halos barely move (the AIAC chapter's separate send and
		// receive threads).
		runtime.Gosched()
	}
}

// lockstep is one pass of the loop of a node with synchronous links: the
// section cannot start at once, since a synchronous partner is blocked on this
// round's halo. A due timer or a call from an asynchronous neighbour becomes a
// request for round+b (b ranks bound the diameter of a cluster); requests ride
// on the synchronous halos, one hop per round, the earliest wins, so every
// node of the cluster knows the round before it comes and all enter together.
func (w *switchRun) lockstep(ctx context.Context, called bool) (bool, error) {
	if (called || w.timer.Due(time.Now()) || w.exhausted()) && w.request == 0 {
		w.request = w.round + w.t.Ranks
	}
	if w.request != 0 && w.round >= w.request {
		if w.round > w.request {
			return false, fmt.Errorf("%w: rank %d learned section round %d in round %d", ErrTermination, w.t.Rank, w.request, w.round)
		}
		w.request = 0
		return w.runSection(ctx)
	}
	if err := w.exchangeRound(ctx); err != nil {
		return false, err
	}
	w.round++
	if _, err := w.takeNewest(); err != nil {
		return false, err
	}
	if !w.exhausted() {
		w.sweep()
	}
	if err := w.sendAsync(ctx); err != nil {
		return false, err
	}
	runtime.Gosched()
	return false, nil
}

// exchangeRound sends the planes on the synchronous links, stamped with the
// section request, then receives the partners' and merges their requests.
func (w *switchRun) exchangeRound(ctx context.Context) error {
	start := time.Now()
	for _, l := range w.links {
		if l == nil || !l.sync {
			continue
		}
		own, _ := w.planes(l)
		if len(own) != l.nOut {
			return l.outgoingChanged(w.solver, len(own))
		}
		w.sentSeq[l.side]++
		msg := l.out[:haloHeader+l.nOut]
		setHaloHeader(msg, w.sentSeq[l.side], haloPlane|uint64(w.request)<<8)
		copy(msg[haloHeader:], own)
		if err := w.ep.SendFloat64s(ctx, l.peer, msg, rmnp.DATA); err != nil {
			return WrapErr(err, "halo to rank %d", l.rank)
		}
	}
	now := time.Now()
	w.res.Send += now.Sub(start)
	defer timed(&w.res.Wait, now)
	for _, l := range w.links {
		if l == nil || !l.sync {
			continue
		}
		n, err := w.ep.ReceiveFloat64s(ctx, l.peer, l.in, rmnp.DATA)
		if err != nil {
			return WrapErr(err, "halo from rank %d", l.rank)
		}
		seq, kind := haloHeaderOf(l.in)
		if kind&0xff != haloPlane || n != haloHeader+l.nIn {
			return WrapErr(fmt.Errorf("%w: kind %d with %d values", errWire, kind, n), "halo from rank %d", l.rank)
		}
		l.seq = seq
		_, halo := w.planes(l)
		copy(halo, l.in[haloHeader:n])
		w.received(l)
		if r := int(kind >> 8); r > w.round && (w.request == 0 || r < w.request) {
			w.request = r
		}
	}
	return nil
}

// sectionCalled polls the control messages: the only one that can arrive
// outside a section is a neighbour's first halo of the next section.
func (w *switchRun) sectionCalled() (bool, error) {
	called := false
	for _, l := range w.links {
		if l == nil {
			continue
		}
		m, err := w.recvCtrl(context.Background(), l.side, rmnp.NoWait)
		if errors.Is(err, rmnp.ErrNoMessage) {
			continue
		}
		if err != nil {
			return false, err
		}
		if err := w.takeSectionHalo(l, m, w.section+1, 1); err != nil {
			return false, err
		}
		w.pre[l.side], called = true, true
	}
	return called, nil
}

// idle waits for a message or the end of the asynchronous section.
func (w *switchRun) idle(ctx context.Context) error {
	wctx, cancel := context.WithDeadline(ctx, w.timer.start.Add(w.timer.Period))
	defer cancel()
	start := time.Now()
	_, _, err := w.ep.Wait(wctx)
	w.res.Wait += time.Since(start)
	w.maybeReport(time.Now())
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil // a message, or the timer: the loop looks at both
}

// takeNewest takes the newest asynchronous halo of each link, if newer than
// the one held, and reports whether it took one.
func (w *switchRun) takeNewest() (bool, error) {
	took := false
	for _, l := range w.links {
		if l == nil || l.sync {
			continue
		}
		for {
			n, err := w.ep.ReceiveFloat64s(context.Background(), l.peer, l.in, rmnp.DATA|rmnp.NoWait)
			if errors.Is(err, rmnp.ErrNoMessage) {
				break
			}
			if err != nil {
				return false, WrapErr(err, "halo from rank %d", l.rank)
			}
			seq, kind := haloHeaderOf(l.in)
			if kind != haloPlane || n != haloHeader+l.nIn {
				return false, WrapErr(fmt.Errorf("%w: kind %d with %d values", errWire, kind, n), "halo from rank %d", l.rank)
			}
			if seq > l.seq {
				l.seq = seq
				_, halo := w.planes(l)
				copy(halo, l.in[haloHeader:n])
				w.received(l)
				took = true
			}
		}
	}
	return took, nil
}

// sendAsync sends both planes as asynchronous DATA.
func (w *switchRun) sendAsync(ctx context.Context) error {
	start := time.Now()
	defer timed(&w.res.Send, start)
	for _, l := range w.links {
		if l == nil || l.sync {
			continue
		}
		own, _ := w.planes(l)
		if len(own) != l.nOut {
			return l.outgoingChanged(w.solver, len(own))
		}
		w.sentSeq[l.side]++
		msg := l.out[:haloHeader+l.nOut]
		setHaloHeader(msg, w.sentSeq[l.side], haloPlane)
		copy(msg[haloHeader:], own)
		if w.t.hooks != nil && w.t.hooks.beforeSend != nil {
			w.t.hooks.beforeSend(l.rank)
		}
		if err := w.ep.SendFloat64s(ctx, l.peer, msg, rmnp.DATA); err != nil {
			return WrapErr(err, "halo to rank %d", l.rank)
		}
	}
	return nil
}

// runSection runs synchronous section w.section+1 and reports whether the run
// stops after it.
func (w *switchRun) runSection(ctx context.Context) (bool, error) {
	w.section++
	for step := uint64(1); step <= 2; step++ {
		if err := w.exchangeSection(ctx, step); err != nil {
			return false, err
		}
		if !w.exhausted() {
			w.sweep()
		}
	}
	vote := SectionVote{OK: w.sigma >= 0 && w.sigma < w.eps, Exhausted: w.exhausted(), Sigma: w.sigma}
	decision, err := w.reduce(ctx, vote)
	if err != nil {
		return false, err
	}
	if decision.Stop() {
		w.res.Converged = decision.OK
		return true, nil
	}
	w.timer.Restart(time.Now(), decision.Sigma, w.eps)
	return false, nil
}

// exchangeSection sends this step's halos as CTRL and receives the
// neighbours'.
func (w *switchRun) exchangeSection(ctx context.Context, step uint64) error {
	for _, l := range w.links {
		if l == nil {
			continue
		}
		own, _ := w.planes(l)
		if len(own) != l.nOut {
			return l.outgoingChanged(w.solver, len(own))
		}
		w.sentSeq[l.side]++
		msg := encodeCtrl(w.ctrlOut, ctrlSectionHalo, w.sentSeq[l.side], w.section<<1|(step-1), own)
		if err := w.sendCtrl(ctx, l.side, msg); err != nil {
			return err
		}
	}
	for _, l := range w.links {
		if l == nil {
			continue
		}
		if step == 1 && w.pre[l.side] {
			w.pre[l.side] = false
			continue
		}
		m, err := w.recvCtrl(ctx, l.side, 0)
		if err != nil {
			return err
		}
		if err := w.takeSectionHalo(l, m, w.section, step); err != nil {
			return err
		}
	}
	return nil
}

// takeSectionHalo checks that m is the halo of step of section and takes it.
func (w *switchRun) takeSectionHalo(l *link, m ctrlMsg, section, step uint64) error {
	_, halo := w.planes(l)
	if m.kind != ctrlSectionHalo || m.arg != section<<1|(step-1) || !m.floats(halo) {
		return fmt.Errorf("%w: rank %d sent control kind %d (arg %d, %d bytes), want halo %d of section %d",
			ErrTermination, l.rank, m.kind, m.arg, len(m.payload), step, section)
	}
	l.seq = max(l.seq, m.seq)
	w.received(l)
	return nil
}

// reduce combines the votes up the spanning tree and returns the decision
// sent back down (on a chain: up the chain and back).
func (w *switchRun) reduce(ctx context.Context, vote SectionVote) (SectionVote, error) {
	for _, c := range w.children {
		m, err := w.recvSection(ctx, c, ctrlSectionVote)
		if err != nil {
			return vote, err
		}
		vote = vote.And(m)
	}
	if w.parent >= 0 {
		msg := encodeCtrl(w.ctrlOut, ctrlSectionVote, vote.flags(), w.section, []float64{vote.Sigma})
		if err := w.sendCtrl(ctx, w.parent, msg); err != nil {
			return vote, err
		}
		var err error
		if vote, err = w.recvSection(ctx, w.parent, ctrlSectionDecision); err != nil {
			return vote, err
		}
	}
	for _, c := range w.children {
		msg := encodeCtrl(w.ctrlOut, ctrlSectionDecision, vote.flags(), w.section, []float64{vote.Sigma})
		if err := w.sendCtrl(ctx, c, msg); err != nil {
			return vote, err
		}
	}
	return vote, nil
}

// recvSection receives a vote or decision of the current section.
func (w *switchRun) recvSection(ctx context.Context, side Side, kind ctrlKind) (SectionVote, error) {
	m, err := w.recvCtrl(ctx, side, 0)
	if err != nil {
		return SectionVote{}, err
	}
	var sigma [1]float64
	if m.kind != kind || m.arg != w.section || !m.floats(sigma[:]) {
		return SectionVote{}, fmt.Errorf("%w: rank %d sent control kind %d (arg %d), want kind %d of section %d",
			ErrTermination, w.links[side].rank, m.kind, m.arg, kind, w.section)
	}
	return voteOf(m.seq, sigma[0]), nil
}

// sectionCallRatio bounds what sections called on a local test can cost:
// at most one section per sectionCallRatio section lengths (a section is two
// synchronous iterations and a reduction along the tree), so while some
// ranks have converged and others not, the calls take at most 1/4 of the
// time.
const sectionCallRatio = 4

// locallyDone reports whether this node should call a section before its
// timer is due: its local test holds and the last section ended at least
// sectionCallRatio section lengths ago (and never later than the timer's
// shortest period). Waiting for the timer (up to Max) after the whole grid
// has converged is the detector's overshoot: iterations past ε that the
// result does not need.
func (w *switchRun) locallyDone(now time.Time) bool {
	gap := min(sectionCallRatio*w.sectionCost, w.timer.Min)
	return w.sigma >= 0 && w.sigma < w.eps && now.Sub(w.timer.start) >= gap
}
