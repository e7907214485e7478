package worker

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// AskNewest asks holder b, over ep (the submitter's), for the newest copy
// it keeps of rank's part of the run whose checkpoints are keyed run, and
// returns its header: the iteration and step a restore from b starts at.
// It is the fetch a restored part makes (msgCopyFetch, newest, fetchFrom),
// so the statuses' lag does not matter: b answers with what it holds now.
// It asks for the header alone: the copy's payload and checksum stay on
// b, and the restore checks them.
func AskNewest(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder, run string, rank int) (checkpoint.Header, error) {
	id := NodeID(b.Node)
	fetch := askFetches.Add(1) // a late answer to an earlier ask is not this one's
	buf := make([]byte, 4<<10)
	enc, err := fetchFrom(ctx, ep, b, copyFetch{ID: fetch, Run: run, Rank: rank, Latest: true, Header: true}, func(ctx context.Context) ([]byte, error) {
		for {
			src, kind, err := ep.Wait(ctx)
			if err != nil {
				return nil, err
			}
			r, err := ReceiveCtrl(ctx, ep, src, kind, &buf)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				continue
			}
			// type ‖ fetch id (uint64 LE) ‖ 1 and the header, or 0 and why not.
			if src == id && len(r) >= 10 && MsgType(r[0]) == MsgCopyReply && binary.LittleEndian.Uint64(r[1:]) == fetch {
				return r[9:], nil
			}
		}
	})
	if err != nil {
		return checkpoint.Header{}, fmt.Errorf("engine: %w", err)
	}
	h, err := checkpoint.ParseHeader(enc)
	switch {
	case err != nil:
		return checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: %w", rank, b.Node, err)
	case h.Rank != rank:
		return checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: the newest is rank %d's", rank, b.Node, h.Rank)
	}
	return h, nil
}

// askFetches numbers AskNewest's fetches, so that a late answer to an
// earlier one is told apart.
var askFetches atomic.Uint64
