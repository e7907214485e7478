package engine

import (
	"errors"
	"fmt"
)

// ErrTermination reports a detector message that breaks the termination protocol:
// a token for the wrong iteration, a termination order to an active node. It
// means a bug or a corrupted peer, never a user error.
var ErrTermination = errors.New("engine: termination protocol violated")

// ConvToken is the token tok_conv_{r,r+1} of GRIDHPC Fig. 6: the conjunction of
// the local convergence tests of ranks 0..r at iteration Iter.
type ConvToken struct {
	Iter int  // iteration the conjunction is about; < 1 carries no information
	OK   bool // every rank 0..r had σ < ε at iteration Iter
}

// TermToken is the token tok_term_{r,r-1} of GRIDHPC Fig. 6: the iteration
// after which every rank stops (StopAt), or 0 while convergence is not known.
type TermToken struct {
	StopAt int
}

// ConvergenceTokens is the termination detector of synchronous runs (GRIDHPC
// Sec. VI-B1, Fig. 6) for one rank of a chain of ranks, kept apart from I/O so
// that it can be tested exhaustively.
//
// The tokens are pipelined so that no rank ever waits for a token that is not
// already on its way: in iteration k rank r reads the tok_conv its lower
// neighbour sent in iteration k-1 (about iteration k-r), ANDs its own local
// test of iteration k-r, and forwards it; so the last rank learns in iteration
// j+b-1 whether all b ranks had σ < ε at iteration j. It then fixes the stop
// iteration T = k+b-1 and sends it down as tok_term, which reaches rank r in
// iteration ≤ T. Every rank therefore stops after exactly T sweeps: a
// synchronous run performs the serial iterations plus a token delay of at most
// 2(b-1), and its values stay bit-for-bit equal to the serial ones.
//
// Messages sent in iteration k are read in iteration k+1, and nothing is sent
// in the stop iteration, so no token is left unread when the run ends.
type ConvergenceTokens struct {
	rank, ranks int
	maxIter     int
	local       []bool // local test by iteration, ring of size ranks
	stopAt      int
	converged   bool
}

// NewConvergenceTokens returns the detector of rank among ranks; maxIter > 0
// stops every rank after maxIter iterations even without convergence.
func NewConvergenceTokens(rank, ranks, maxIter int) (*ConvergenceTokens, error) {
	if ranks < 1 || rank < 0 || rank >= ranks {
		return nil, fmt.Errorf("engine: tokens: rank %d out of range for %d ranks", rank, ranks)
	}
	return &ConvergenceTokens{rank: rank, ranks: ranks, maxIter: maxIter, local: make([]bool, ranks)}, nil
}

// Receives reports whether iteration k reads tokens from the neighbours (they
// are sent from iteration 1 on and read one iteration later).
func (t *ConvergenceTokens) Receives(k int) bool { return k >= 2 }

// Step records iteration k's local test and the tokens read in iteration k
// (zero values when Receives(k) is false or the neighbour does not exist). It
// returns the tokens to send in iteration k, whether to send them, and whether
// the rank stops after iteration k.
func (t *ConvergenceTokens) Step(k int, localOK bool, conv ConvToken, term TermToken) (ConvToken, TermToken, bool, bool, error) {
	t.local[k%t.ranks] = localOK
	out := ConvToken{Iter: k - t.rank}
	switch {
	case t.rank == 0:
		out.OK = localOK
	case t.Receives(k):
		if conv.Iter != out.Iter {
			return ConvToken{}, TermToken{}, false, false, fmt.Errorf(
				"%w: rank %d iteration %d got tok_conv for iteration %d, want %d",
				ErrTermination, t.rank, k, conv.Iter, out.Iter)
		}
		out.OK = out.Iter >= 1 && conv.OK && t.local[out.Iter%t.ranks]
	}
	if term.StopAt > 0 && t.stopAt == 0 {
		t.stopAt = term.StopAt
		t.converged = true
	}
	if t.rank == t.ranks-1 && out.Iter >= 1 && out.OK && t.stopAt == 0 {
		t.stopAt = k + t.ranks - 1
		t.converged = true
	}
	if t.stopAt > 0 && k > t.stopAt {
		return ConvToken{}, TermToken{}, false, false, fmt.Errorf(
			"%w: rank %d learned stop iteration %d only in iteration %d", ErrTermination, t.rank, t.stopAt, k)
	}
	stop := k == t.stopAt || (t.maxIter > 0 && k >= t.maxIter)
	return out, TermToken{StopAt: t.stopAt}, !stop, stop, nil
}

// Converged reports whether the rank learned that the global test passed.
func (t *ConvergenceTokens) Converged() bool { return t.converged }

// StopAt returns the agreed stop iteration, 0 while unknown.
func (t *ConvergenceTokens) StopAt() int { return t.stopAt }
