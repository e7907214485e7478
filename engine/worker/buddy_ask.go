package worker

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// AskNewest asks holder b, over ep (the submitter's), for the newest copy
// it keeps of rank's part of the run whose checkpoints are keyed run, and
// returns its header: the iteration and step a restore from b starts at.
// It is the fetch a restored part makes (msgCopyFetch, newest), so the
// statuses' lag does not matter: b answers with what it holds now. The
// copy's checksum is checked; whose it is, the restore judges.
func AskNewest(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder, run string, rank int) (checkpoint.Header, error) {
	id := NodeID(b.Node)
	if !slices.Contains(ep.Peers(), id) {
		if _, err := ConnectCtrl(ctx, ep, id, b.Ctrl); err != nil {
			return checkpoint.Header{}, fmt.Errorf("engine: copies on %s: link: %w", b.Node, err)
		}
	}
	fetch := askFetches.Add(1) // a late answer to an earlier ask is not this one's
	m, err := EncodeMsg(MsgCopyFetch, copyFetch{ID: fetch, Run: run, Rank: rank, Latest: true})
	if err != nil {
		return checkpoint.Header{}, err
	}
	if err := ep.Send(ctx, id, m, rmnp.CTRL); err != nil {
		return checkpoint.Header{}, fmt.Errorf("engine: copies on %s: %w", b.Node, err)
	}
	buf := make([]byte, 64<<10)
	for {
		src, kind, err := ep.Wait(ctx)
		if err != nil {
			return checkpoint.Header{}, fmt.Errorf("engine: copies on %s: no answer: %w", b.Node, err)
		}
		r, err := ReceiveCtrl(ctx, ep, src, kind, &buf)
		if err != nil {
			if ctx.Err() != nil {
				return checkpoint.Header{}, fmt.Errorf("engine: copies on %s: no answer: %w", b.Node, err)
			}
			continue
		}
		// type ‖ fetch id (uint64 LE) ‖ 1 and the copy, or 0 and why not.
		if src != id || len(r) < 10 || MsgType(r[0]) != MsgCopyReply || binary.LittleEndian.Uint64(r[1:]) != fetch {
			continue
		}
		if r[9] != 1 {
			return checkpoint.Header{}, fmt.Errorf("engine: copies on %s: %s", b.Node, r[10:])
		}
		h, _, err := checkpoint.Read(bytes.NewReader(r[10:]), int64(rmnp.DefaultMaxFrame))
		if err != nil {
			return checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: %w", rank, b.Node, err)
		}
		if h.Rank != rank {
			continue
		}
		return h, nil
	}
}

// askFetches numbers AskNewest's fetches, so that a late answer to an
// earlier one is told apart.
var askFetches atomic.Uint64
