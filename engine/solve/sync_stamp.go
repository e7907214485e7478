package solve

import "fmt"

// The synchronous scheme's halo messages carry the convergence tokens of
// GRIDHPC Fig. 6 in their stamp (the haloHeader values in front of the
// plane, see solve_wire.go): arg as the first value's bits, kind as the
// second's. On a link of the tokens' spanning tree a child's halo carries
// tok_conv to its parent and the parent's carries tok_term down; the other
// links, and every link in the first iteration, carry no token.
const (
	haloSync   = 3 // synchronous plane, no token; arg 0
	haloConv   = 4 // synchronous plane and tok_conv, some local test failed; arg: the iteration (int64)
	haloConvOK = 5 // synchronous plane and tok_conv, all local tests passed; arg: the iteration
	haloTerm   = 6 // synchronous plane and tok_term; arg: the stop iteration, 0 while unknown
)

// syncStamp is a synchronous halo's stamp.
type syncStamp struct {
	kind uint64
	arg  uint64
}

// stampOf reads the stamp of the halo message v (at least haloHeader values).
func stampOf(v []float64) syncStamp {
	arg, kind := haloHeaderOf(v)
	return syncStamp{kind: kind, arg: arg}
}

// put writes the stamp into the halo message v.
func (st syncStamp) put(v []float64) { setHaloHeader(v, st.arg, st.kind) }

func (st syncStamp) String() string {
	switch st.kind {
	case haloSync:
		return "no token"
	case haloConv, haloConvOK:
		return "tok_conv"
	case haloTerm:
		return "tok_term"
	}
	return fmt.Sprintf("stamp kind %d", st.kind)
}

// tokenRole is what a link is to the tokens' spanning tree.
type tokenRole uint8

const (
	roleNone   tokenRole = iota // not a tree edge: no token travels on it
	roleParent                  // tok_conv goes out, tok_term comes in
	roleChild                   // tok_term goes out, tok_conv comes in
)

// tokenLinks are the tokens' sides: tok_conv comes from the spanning tree's
// children and goes to the parent, tok_term the other way; both travel in
// the stamps of the next iteration's halos.
type tokenLinks struct {
	role  []tokenRole // by side
	child []int       // by side: the child's index in convs (−1: not a child)
	out   []syncStamp // by side: the stamp of the next halo sent
	convs []ConvToken // read in this iteration, by child
	term  TermToken   // read in this iteration from the parent
}

func newTokenLinks(sides int, parent Side, children []Side) *tokenLinks {
	t := &tokenLinks{role: make([]tokenRole, sides), child: make([]int, sides), out: make([]syncStamp, sides),
		convs: make([]ConvToken, len(children))}
	for i := range t.out {
		t.out[i] = syncStamp{kind: haloSync}
		t.child[i] = -1
	}
	if parent >= 0 {
		t.role[parent] = roleParent
	}
	for i, c := range children {
		t.role[c], t.child[c] = roleChild, i
	}
	return t
}

// stamp sets the stamps of the next halos: tok_conv to the parent, tok_term
// to the children.
func (t *tokenLinks) stamp(c ConvToken, tm TermToken) {
	conv := syncStamp{kind: haloConv, arg: uint64(int64(c.Iter))}
	if c.OK {
		conv.kind = haloConvOK
	}
	for side, r := range t.role {
		switch r {
		case roleParent:
			t.out[side] = conv
		case roleChild:
			t.out[side] = syncStamp{kind: haloTerm, arg: uint64(tm.StopAt)}
		}
	}
}

// take records the token in the stamp st of the halo from side; tokens says
// whether the detector reads tokens in this iteration (from the second on).
// A stamp of an unknown kind is a malformed message (errWire), a token
// where none belongs, or none where one does, breaks the protocol
// (ErrTermination).
func (t *tokenLinks) take(side Side, st syncStamp, tokens bool) error {
	want := roleNone
	if tokens {
		want = t.role[side]
	}
	switch {
	case st.kind < haloSync || st.kind > haloTerm:
		return fmt.Errorf("%w: halo stamp kind %d", errWire, st.kind)
	case st.kind == haloSync && st.arg != 0:
		return fmt.Errorf("%w: halo stamp without a token has argument %d", errWire, st.arg)
	}
	got := roleNone
	switch st.kind {
	case haloConv, haloConvOK:
		got = roleChild
	case haloTerm:
		got = roleParent
	}
	if got != want {
		return fmt.Errorf("%w: halo carries %s, want %s", ErrTermination, st, syncStamp{kind: wantKind(want)})
	}
	switch want {
	case roleChild:
		t.convs[t.child[side]] = ConvToken{Iter: int(int64(st.arg)), OK: st.kind == haloConvOK}
	case roleParent:
		t.term = TermToken{StopAt: int(min(st.arg, 1<<62))}
	}
	return nil
}

// wantKind is a stamp kind carrying what a link of role r brings in.
func wantKind(r tokenRole) uint64 {
	switch r {
	case roleChild:
		return haloConv
	case roleParent:
		return haloTerm
	}
	return haloSync
}
