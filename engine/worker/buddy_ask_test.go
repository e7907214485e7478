package worker

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// TestAskNewest: the submitter asks a holder for the newest copy it keeps
// of a part and gets its header (iteration and step), whatever the
// statuses said, without the copy's payload; a holder without one says
// so, naming itself.
func TestAskNewest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	newEP := func(id rmnp.PeerID) *rmnp.Endpoint {
		cfg := rmnp.DefaultConfig()
		cfg.RunID, cfg.Secret, cfg.Self = [16]byte{2}, []byte("the test secret of the copies"), id
		cfg.Listen = []string{"tcp://127.0.0.1:0"}
		e, err := rmnp.Listen(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	z := newEP(NodeID("beta-3"))
	n := &node{boot: deploy.Boot{Node: "beta-3"}, log: slog.New(slog.DiscardHandler), ctrl: z, copies: newCopyStore()}
	for i, step := range []int{5, 6} {
		h := checkpoint.Header{Run: "key", Rank: 2, Ranks: 8, Iteration: uint64(1000 * (i + 1)), Step: step}
		enc, err := checkpoint.Append(nil, h, make([]byte, 256<<10))
		if err != nil {
			t.Fatal(err)
		}
		n.copies.mem.Keep(h, enc, nil)
	}
	go func() { // the holder's side: answer what it is asked
		buf := make([]byte, 64<<10)
		for {
			src, kind, err := z.Wait(ctx)
			if err != nil {
				return
			}
			m, err := ReceiveCtrl(ctx, z, src, kind, &buf)
			if err != nil {
				continue
			}
			if t, body, err := DecodeMsg(m); err == nil {
				n.onCopy(ctx, src, t, body)
			}
		}
	}()
	sub := newEP(SubmitterID)
	b := solve.Holder{Node: "beta-3", Ctrl: z.Addrs()}
	h, err := AskNewest(ctx, sub, b, "key", 2)
	if err != nil || h.Iteration != 2000 || h.Step != 6 || h.Rank != 2 {
		t.Fatalf("newest copy %+v, %v: want iteration 2000 of step 7 (6 advanced)", h, err)
	}
	// The answer is the header alone, not the 256 KiB state; a restore's
	// fetch gets the whole copy.
	hl := checkpoint.HeaderLen(h)
	if a := n.answer(copyFetch{Run: "key", Rank: 2, Latest: true, Header: true}); len(a) != 10+hl || a[9] != 1 {
		t.Errorf("header-only answer of %d bytes, want %d", len(a), 10+hl)
	}
	if a := n.answer(copyFetch{Run: "key", Rank: 2, Latest: true}); len(a) != 10+hl+256<<10+4 {
		t.Errorf("whole answer of %d bytes, want %d", len(a), 10+hl+256<<10+4)
	}
	if _, err := AskNewest(ctx, sub, b, "key", 3); err == nil || !strings.Contains(err.Error(), "beta-3") {
		t.Fatalf("rank held nowhere: %v, want beta-3 named", err)
	}
}
