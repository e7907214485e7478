package solve

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
// Sec. VI-B1, Fig. 6) for one rank, kept apart from I/O so that it can be
// tested exhaustively. The paper's tokens travel along a chain of ranks;
// here they travel along a spanning tree of the neighbour graph (on a
// chain rooted at its last rank, the paper's chain): tok_conv up to the
// root, tok_term down.
//
// The tokens are pipelined so that no rank ever waits for a token that is not
// already on its way: a rank whose subtree has height h sends, in iteration
// k, the conjunction of the local tests of its whole subtree at iteration
// k−h — its own, kept in a ring, and those its children sent in earlier
// iterations about that iteration (a child of height h' sends in iteration
// k−1 its token about k−1−h', and h' ≤ h−1). So the root learns in
// iteration j+H whether all ranks had σ < ε at iteration j (H: the root's
// height). It then fixes the stop iteration T = k+D (D: the tree's depth)
// and sends it down as tok_term, one hop per iteration, which reaches
// every rank in iteration ≤ T. Every rank therefore stops after exactly T
// sweeps: a synchronous run performs the serial iterations plus a token
// delay of at most H+D, and its values stay bit-for-bit equal to the serial
// ones.
//
// Messages sent in iteration k are read in iteration k+1, and nothing is sent
// in the stop iteration, so no token is left unread when the run ends.
type ConvergenceTokens struct {
	height   int   // this rank's subtree height
	kids     []int // the children's subtree heights
	root     bool
	depth    int // the tree's depth (the root's stop delay)
	maxIter  int
	ok       []bool // ring: conjunction so far of the subtree's tests at an iteration
	stopAt   int
	conv     bool
	children []ConvToken // Step's one-child buffer
}

// NewConvergenceTokens returns the detector of rank among ranks of a chain
// (the leaf is rank 0, the root rank ranks−1); maxIter > 0 stops every rank
// after maxIter iterations even without convergence.
func NewConvergenceTokens(rank, ranks, maxIter int) (*ConvergenceTokens, error) {
	if ranks < 1 || rank < 0 || rank >= ranks {
		return nil, fmt.Errorf("engine: tokens: rank %d out of range for %d ranks", rank, ranks)
	}
	var kids []int
	if rank > 0 {
		kids = []int{rank - 1}
	}
	return NewTreeTokens(rank, kids, rank == ranks-1, ranks-1, maxIter), nil
}

// NewTreeTokens returns the detector of a rank of a spanning tree: the
// height of its subtree, its children's heights (in the order Step takes
// their tokens), whether it is the root, and the tree's depth.
func NewTreeTokens(height int, childHeights []int, root bool, depth, maxIter int) *ConvergenceTokens {
	return &ConvergenceTokens{height: height, kids: childHeights, root: root, depth: depth, maxIter: maxIter,
		ok: make([]bool, height+1), children: make([]ConvToken, 1)}
}

// Receives reports whether iteration k reads tokens from the neighbours (they
// are sent from iteration 1 on and read one iteration later).
func (t *ConvergenceTokens) Receives(k int) bool { return k >= 2 }

// Step records iteration k's local test and the tokens read in iteration k
// from a chain's lower rank and upper rank (zero values when Receives(k) is
// false or the neighbour does not exist). It returns the tokens to send in
// iteration k, whether to send them, and whether the rank stops after
// iteration k.
func (t *ConvergenceTokens) Step(k int, localOK bool, conv ConvToken, term TermToken) (ConvToken, TermToken, bool, bool, error) {
	kids := t.children[:len(t.kids)]
	if len(kids) > 0 {
		kids[0] = conv
	}
	return t.StepTree(k, localOK, kids, term)
}

// StepTree is Step on a tree: convs holds the tokens read from the
// children, in the order of their heights given to NewTreeTokens.
func (t *ConvergenceTokens) StepTree(k int, localOK bool, convs []ConvToken, term TermToken) (ConvToken, TermToken, bool, bool, error) {
	ring := len(t.ok)
	t.ok[k%ring] = localOK
	if t.Receives(k) {
		if len(convs) != len(t.kids) {
			return ConvToken{}, TermToken{}, false, false, fmt.Errorf("%w: %d tok_conv for %d children", ErrTermination, len(convs), len(t.kids))
		}
		for i, c := range convs {
			want := k - 1 - t.kids[i]
			if c.Iter != want {
				return ConvToken{}, TermToken{}, false, false, fmt.Errorf(
					"%w: iteration %d got tok_conv for iteration %d from child %d, want %d", ErrTermination, k, c.Iter, i, want)
			}
			if want >= 1 {
				t.ok[want%ring] = t.ok[want%ring] && c.OK
			}
		}
	}
	out := ConvToken{Iter: k - t.height}
	out.OK = out.Iter >= 1 && t.ok[out.Iter%ring]
	if term.StopAt > 0 && t.stopAt == 0 {
		t.stopAt = term.StopAt
		t.conv = true
	}
	if t.root && out.OK && t.stopAt == 0 {
		t.stopAt = k + t.depth
		t.conv = true
	}
	if t.stopAt > 0 && k > t.stopAt {
		return ConvToken{}, TermToken{}, false, false, fmt.Errorf(
			"%w: learned stop iteration %d only in iteration %d", ErrTermination, t.stopAt, k)
	}
	stop := k == t.stopAt || (t.maxIter > 0 && k >= t.maxIter)
	return out, TermToken{StopAt: t.stopAt}, !stop, stop, nil
}

// Converged reports whether the rank learned that the global test passed.
func (t *ConvergenceTokens) Converged() bool { return t.conv }

// StopAt returns the agreed stop iteration, 0 while unknown.
func (t *ConvergenceTokens) StopAt() int { return t.stopAt }
