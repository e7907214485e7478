package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/gridtui/gridtui/rmnp"
)

// A frame is atomic on the wire (rmnp/spec.md): a Send whose context ends
// before its frame is started is withdrawn, but one that ends mid-frame
// cuts the link, since a partial frame cannot be resumed. The peer takes
// the cut for this node's failure, and a member whose coordinator cut its
// control link exits "parent lost". So a control send made for an attempt
// (whose context ends with it: a checkpoint copy to the buddy, a task to a
// member, a message forwarded up) goes through sendWhole: the attempt's
// end stops waiting for the frame, never the frame itself.

// errLeftSending wraps the error of a send that the caller stopped waiting
// for while its frame went on in the background: the message's buffer is
// still being read, so the caller must not reuse it.
var errLeftSending = errors.New("engine: control message left to finish in the background")

// sendWhole sends m to peer as a CTRL message whose frame ctx never cuts.
// It is not started once ctx has ended; once started it goes on under a
// context that outlives ctx, bounded by BeatTimeout (a peer that does not
// take a frame for that long was named by the detector long before). If
// ctx ends first, sendWhole returns at once an error that wraps both
// errLeftSending and ctx's error; the frame is then still written from m,
// which the caller must leave alone.
func (n *node) sendWhole(ctx context.Context, peer rmnp.PeerID, m []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("engine: send to peer %d not started: %w", peer, err)
	}
	sent := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), BeatTimeout)
		defer cancel()
		if n.sendHook != nil {
			n.sendHook()
		}
		err := n.ctrl.Send(sctx, peer, m, rmnp.CTRL)
		sent <- err
		if err != nil && ctx.Err() != nil {
			n.log.Debug("engine: control send left in the background failed", "peer", peer, "err", err)
		}
	}()
	select {
	case err := <-sent:
		return err
	case <-ctx.Done():
		select {
		case err := <-sent: // finished meanwhile: m is free
			return err
		default:
		}
		return fmt.Errorf("%w (peer %d): %w", errLeftSending, peer, ctx.Err())
	}
}
