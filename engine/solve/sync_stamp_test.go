package solve

import (
	"errors"
	"testing"

	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/rmnp"
)

// TestSyncStampRoundTrip: the tokens a rank stamps on its halos are the
// tokens its neighbours read from them, on every kind of link.
func TestSyncStampRoundTrip(t *testing.T) {
	// Side 0 is the parent, sides 1 and 2 children, side 3 off the tree.
	tests := map[string]struct {
		c  ConvToken
		tm TermToken
	}{
		"conv ok":       {ConvToken{Iter: 7, OK: true}, TermToken{}},
		"conv failed":   {ConvToken{Iter: 7}, TermToken{StopAt: 12}},
		"conv negative": {ConvToken{Iter: -2}, TermToken{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out := newTokenLinks(4, 0, []Side{1, 2})
			out.stamp(tc.c, tc.tm)
			v := make([]float64, haloHeader)
			// The parent reads tok_conv from its child (its side 5 of 6).
			up := newTokenLinks(6, -1, []Side{3, 5})
			out.out[0].put(v)
			if err := up.take(5, stampOf(v), true); err != nil {
				t.Fatal(err)
			}
			if up.convs[1] != tc.c {
				t.Fatalf("parent read %+v, want %+v", up.convs[1], tc.c)
			}
			// Each child reads tok_term from its parent (its side 1).
			for _, side := range []Side{1, 2} {
				down := newTokenLinks(2, 1, nil)
				out.out[side].put(v)
				if err := down.take(1, stampOf(v), true); err != nil {
					t.Fatal(err)
				}
				if down.term != tc.tm {
					t.Fatalf("child read %+v, want %+v", down.term, tc.tm)
				}
			}
			// A link off the tree carries no token.
			off := newTokenLinks(1, -1, nil)
			out.out[3].put(v)
			if err := off.take(0, stampOf(v), true); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSyncStampRejects: a stamp of an unknown kind is a malformed halo; a
// token where none belongs (or none where one must be) breaks the protocol.
func TestSyncStampRejects(t *testing.T) {
	tests := map[string]struct {
		st     syncStamp
		side   Side
		tokens bool
		is     error
	}{
		"kind zero":               {syncStamp{}, 0, true, errWire},
		"asynchronous plane":      {syncStamp{kind: haloPlane, arg: 3}, 0, true, errWire},
		"kind too big":            {syncStamp{kind: haloTerm + 1}, 0, true, errWire},
		"no token with argument":  {syncStamp{kind: haloSync, arg: 1}, 2, true, errWire},
		"token in iteration 1":    {syncStamp{kind: haloConvOK, arg: 1}, 1, false, ErrTermination},
		"no tok_conv from child":  {syncStamp{kind: haloSync}, 1, true, ErrTermination},
		"tok_term from child":     {syncStamp{kind: haloTerm, arg: 4}, 1, true, ErrTermination},
		"tok_conv from parent":    {syncStamp{kind: haloConv, arg: 4}, 0, true, ErrTermination},
		"token off the tree":      {syncStamp{kind: haloTerm}, 2, true, ErrTermination},
		"no tok_term from parent": {syncStamp{kind: haloSync}, 0, true, ErrTermination},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tok := newTokenLinks(3, 0, []Side{1})
			if err := tok.take(tc.side, tc.st, tc.tokens); !errors.Is(err, tc.is) {
				t.Fatalf("err %v, want %v", err, tc.is)
			}
		})
	}
}

// FuzzSyncStamp feeds halo stamps from a (possibly hostile) neighbour:
// taking one never panics, and a stamp taken re-encodes to itself.
func FuzzSyncStamp(f *testing.F) {
	f.Add(uint64(0), uint64(haloSync), uint8(2), true)
	f.Add(uint64(5), uint64(haloConvOK), uint8(1), true)
	f.Add(uint64(9), uint64(haloTerm), uint8(0), true)
	f.Add(uint64(1<<63), uint64(haloTerm), uint8(0), true)
	f.Add(uint64(3), uint64(haloPlane), uint8(1), false)
	f.Fuzz(func(t *testing.T, arg, kind uint64, side uint8, tokens bool) {
		tok := newTokenLinks(3, 0, []Side{1})
		s := Side(side % 3)
		v := make([]float64, haloHeader)
		setHaloHeader(v, arg, kind)
		st := stampOf(v)
		if st.arg != arg || st.kind != kind {
			t.Fatalf("stamp (%d, %d) read back as %+v", arg, kind, st)
		}
		if err := tok.take(s, st, tokens); err != nil {
			if !errors.Is(err, errWire) && !errors.Is(err, ErrTermination) {
				t.Fatalf("error %v is neither errWire nor ErrTermination", err)
			}
			return
		}
		switch {
		case s == 1 && tokens:
			back := newTokenLinks(1, 0, nil)
			back.stamp(tok.convs[0], TermToken{})
			if back.out[0] != st {
				t.Fatalf("tok_conv %+v re-stamps as %+v, want %+v", tok.convs[0], back.out[0], st)
			}
		case s == 0 && tokens && arg <= 1<<62:
			back := newTokenLinks(1, -1, []Side{0})
			back.stamp(ConvToken{}, tok.term)
			if back.out[0] != st {
				t.Fatalf("tok_term %+v re-stamps as %+v, want %+v", tok.term, back.out[0], st)
			}
		}
	})
}

// TestSyncOneFramePerIteration: a synchronous iteration is one DATA frame
// each way per link, the tokens in it, and no control message at all.
func TestSyncOneFramePerIteration(t *testing.T) {
	p := obstacle.Problem{N: 12, Eps: 1e-7}
	var stats []rmnp.Stats
	c := chainRun{p: p, ranks: 4, cores: 1, scheme: Synchronous, afterRun: func(eps []*rmnp.Endpoint) {
		for _, e := range eps {
			stats = append(stats, e.Stats())
		}
	}}
	res, _ := c.run(t)
	_, serialIters, _ := obstacle.SerialSolve(p)
	if want := serialIters + 2*3; res[0].Iterations != want {
		t.Fatalf("%d iterations, want %d", res[0].Iterations, want)
	}
	plane := uint64(8 * (haloHeader + p.N*p.N))
	for r, st := range stats {
		if want := min(r, 1) + min(3-r, 1); len(st.Links) != want {
			t.Fatalf("rank %d has %d links, want %d", r, len(st.Links), want)
		}
		for _, l := range st.Links {
			its := uint64(res[r].Iterations)
			if l.MessagesSent != its || l.MessagesReceived != its || l.RawDataSent != its*plane {
				t.Errorf("rank %d, link to peer %d: %d messages sent, %d received, %d DATA bytes; want %d, %d, %d",
					r, l.Peer, l.MessagesSent, l.MessagesReceived, l.RawDataSent, its, its, its*plane)
			}
		}
	}
}
