package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// runSync is the synchronous scheme: iteration k sends the planes of iterate
// k-1, receives the neighbours' (blocking, reliable and in order), sweeps, and
// runs the convergence tokens of Fig. 6 (CTRL). Iteration k+1 thus uses the
// neighbours' iteration-k halos, exactly as the serial sweep does, so the
// values are bit-for-bit the serial ones after any number of iterations.
func (s *solver) runSync(ctx context.Context) error {
	tree, parent, children := s.tree(s.t.Ranks - 1)
	heights := make([]int, len(children))
	for i, c := range children {
		heights[i] = tree.height[s.links[c].rank]
	}
	budget := s.maxIter // iterations left to this step (tokens count from 1 in every step)
	if budget > 0 {
		budget = max(budget-s.iter, 1)
	}
	det := NewTreeTokens(tree.height[s.t.Rank], heights, parent < 0, tree.maxDepth(), budget)
	tok := tokenLinks{parent: parent, children: children, convs: make([]ConvToken, len(children))}
	for k := 1; ; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.exchangeSync(ctx); err != nil {
			return err
		}
		sigma := s.sweep()
		var term TermToken
		clear(tok.convs)
		if det.Receives(k) {
			var err error
			if term, err = s.receiveTokens(ctx, &tok); err != nil {
				return err
			}
		}
		c, tm, send, stop, err := det.StepTree(k, sigma < s.eps, tok.convs, term)
		if err != nil {
			return err
		}
		if send {
			if err := s.sendTokens(ctx, &tok, c, tm); err != nil {
				return err
			}
		}
		if stop {
			s.res.Converged = det.Converged()
			return nil
		}
	}
}

// exchangeSync sends both planes, then receives both halos.
func (s *solver) exchangeSync(ctx context.Context) error {
	start := time.Now()
	for _, l := range s.links {
		if l == nil {
			continue
		}
		if s.t.hooks != nil && s.t.hooks.beforeSend != nil {
			s.t.hooks.beforeSend(l.rank)
		}
		own, _ := s.planes(l)
		if err := s.ep.SendFloat64s(ctx, l.peer, own, rmnp.DATA); err != nil {
			return wrapErr(err, "halo to rank %d", l.rank)
		}
	}
	now := time.Now()
	s.res.Send += now.Sub(start)
	defer timed(&s.res.Wait, now)
	for _, l := range s.links {
		if l == nil {
			continue
		}
		_, halo := s.planes(l)
		n, err := s.ep.ReceiveFloat64s(ctx, l.peer, halo, rmnp.DATA)
		if errors.Is(err, rmnp.ErrShortBuffer) {
			n, err = len(halo)+1, nil // more values than the halo holds
		}
		if err != nil {
			return wrapErr(err, "halo from rank %d", l.rank)
		}
		if n != len(halo) {
			return wrapErr(s.haloMismatch(l, n), "halo from rank %d", l.rank)
		}
		s.received(l)
	}
	return nil
}

// tokenLinks are the sides the tokens travel on: tok_conv comes from the
// spanning tree's children and goes to the parent, tok_term the other way.
type tokenLinks struct {
	parent   Side // −1 at the root
	children []Side
	convs    []ConvToken // read in this iteration, by child
}

// receiveTokens reads tok_conv from every child and tok_term from the
// parent, all sent in the previous iteration.
func (s *solver) receiveTokens(ctx context.Context, tok *tokenLinks) (TermToken, error) {
	var term TermToken
	for i, c := range tok.children {
		m, err := s.recvCtrl(ctx, c, 0)
		if err != nil {
			return term, err
		}
		if m.kind != ctrlConv {
			return term, fmt.Errorf("%w: got control kind %d from rank %d, want tok_conv", ErrTermination, m.kind, s.links[c].rank)
		}
		tok.convs[i] = ConvToken{Iter: int(int64(m.arg)), OK: m.seq == 1}
	}
	if tok.parent >= 0 {
		m, err := s.recvCtrl(ctx, tok.parent, 0)
		if err != nil {
			return term, err
		}
		if m.kind != ctrlTerm {
			return term, fmt.Errorf("%w: got control kind %d from rank %d, want tok_term", ErrTermination, m.kind, s.links[tok.parent].rank)
		}
		term = TermToken{StopAt: int(m.arg)}
	}
	return term, nil
}

// sendTokens sends tok_conv to the parent and tok_term to the children.
func (s *solver) sendTokens(ctx context.Context, tok *tokenLinks, c ConvToken, tm TermToken) error {
	buf := s.ctrlOut
	if tok.parent >= 0 {
		ok := uint64(0)
		if c.OK {
			ok = 1
		}
		if err := s.sendCtrl(ctx, tok.parent, encodeCtrl(buf, ctrlConv, ok, uint64(int64(c.Iter)), nil)); err != nil {
			return err
		}
	}
	for _, ch := range tok.children {
		if err := s.sendCtrl(ctx, ch, encodeCtrl(buf, ctrlTerm, 0, uint64(tm.StopAt), nil)); err != nil {
			return err
		}
	}
	return nil
}

// haloMismatch is the error of a halo of n values from l's neighbour, when
// the part's halo holds another number: the application's Outgoing and Halo
// disagree (n is len(halo)+1 for "more").
func (s *solver) haloMismatch(l *link, n int) error {
	got := fmt.Sprint(n)
	if n > l.nIn {
		got = "more"
	}
	return fmt.Errorf("%w: %s values, want %d: application %q: rank %d's outgoing values for rank %d and their halo differ in length",
		errWire, got, l.nIn, s.app, l.rank, s.t.Rank)
}
