package solve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/rmnp"
)

// runSync is the synchronous scheme: iteration k sends the planes of iterate
// k-1, receives the neighbours' (blocking, reliable and in order), sweeps, and
// runs the convergence tokens of Fig. 6. Iteration k+1 thus uses the
// neighbours' iteration-k halos, exactly as the serial sweep does, so the
// values are bit-for-bit the serial ones after any number of iterations.
//
// The tokens ride in the halo messages' stamps (syncStamp): those of
// iteration k go with the halos of iteration k+1 and are read there, as the
// detector wants them, so that one synchronous iteration is exactly one DATA
// frame each way per link and no CTRL at all. (As separate CTRL messages they
// were a second frame per link and iteration, which the neighbour often
// received after the halo, with a second wake-up.)
func (s *solver) runSync(ctx context.Context) error {
	tree, parent, children := s.tree(s.t.Ranks - 1)
	budget := s.maxIter // iterations left to this step (tokens count from 1 in every step)
	if budget > 0 {
		budget = max(budget-s.iter, 1)
	}
	det := NewTreeTokens(tree.Height, tree.Heights, parent < 0, tree.Depth, budget)
	tok := newTokenLinks(len(s.links), parent, children)
	for k := 1; ; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.exchangeSync(ctx, tok, det.Receives(k)); err != nil {
			return err
		}
		sigma := s.sweep()
		c, tm, _, stop, err := det.StepTree(k, sigma < s.eps, tok.convs, tok.term)
		if err != nil {
			return err
		}
		if stop { // nothing is sent in the stop iteration: no token is left unread
			s.res.Converged = det.Converged()
			return nil
		}
		tok.stamp(c, tm)
	}
}

// exchangeSync sends every link's plane with its stamp, then receives every
// halo and the tokens stamped on it (tokens: the detector reads tokens in
// this iteration).
func (s *solver) exchangeSync(ctx context.Context, tok *tokenLinks, tokens bool) error {
	start := time.Now()
	for _, l := range s.links {
		if l == nil {
			continue
		}
		if s.t.hooks != nil && s.t.hooks.beforeSend != nil {
			s.t.hooks.beforeSend(l.rank)
		}
		own, _ := s.planes(l)
		if len(own) != l.nOut {
			return l.outgoingChanged(s, len(own))
		}
		copy(l.out[haloHeader:], own)
		tok.out[l.side].put(l.out)
		if err := s.ep.SendFloat64s(ctx, l.peer, l.out, rmnp.DATA); err != nil {
			return WrapErr(err, "halo to rank %d", l.rank)
		}
	}
	now := time.Now()
	s.res.Send += now.Sub(start)
	defer timed(&s.res.Wait, now)
	clear(tok.convs)
	tok.term = TermToken{}
	for _, l := range s.links {
		if l == nil {
			continue
		}
		n, err := s.ep.ReceiveFloat64s(ctx, l.peer, l.in, rmnp.DATA)
		if errors.Is(err, rmnp.ErrShortBuffer) {
			n, err = len(l.in)+1, nil // more values than the halo holds
		}
		if err != nil {
			return WrapErr(err, "halo from rank %d", l.rank)
		}
		if n < haloHeader {
			return WrapErr(fmt.Errorf("%w: %d values, shorter than a halo's stamp", errWire, n), "halo from rank %d", l.rank)
		}
		if n != len(l.in) {
			return WrapErr(s.haloMismatch(l, n-haloHeader), "halo from rank %d", l.rank)
		}
		if err := tok.take(l.side, stampOf(l.in), tokens); err != nil {
			return WrapErr(err, "halo from rank %d", l.rank)
		}
		_, halo := s.planes(l)
		copy(halo, l.in[haloHeader:])
		s.received(l)
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
