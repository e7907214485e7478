package solve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/rmnp"
)

// comm is the low-level model's gridapp.Comm of a part that runs its own
// loop (gridapp.Calculator): the paper's GRID_Send, GRID_Receive and
// GRID_Wait on the part's links, whose modes the scheme and the locality
// chose (GRIDHPC Sec. V-A).
type comm struct{ s *solver }

// runCalculate hands the part its own loop.
func (s *solver) runCalculate(ctx context.Context, calc gridapp.Calculator) error {
	out, err := calc.Calculate(ctx, comm{s})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrApplication) || NeighbourLost(err) {
			return err
		}
		return fmt.Errorf("%w %q: Calculate: %w", ErrApplication, s.app, err)
	}
	if out.Sigma != out.Sigma {
		return fmt.Errorf("%w %q: Calculate ended with σ = NaN", ErrApplication, s.app)
	}
	s.iter, s.sigma, s.res.Converged = out.Iterations, out.Sigma, out.Converged
	return nil
}

// link returns the link to neighbour i, or the error of an application that
// names a rank that is not its neighbour.
func (c comm) link(i int) (*link, error) {
	if i < 0 || i >= len(c.s.links) {
		return nil, fmt.Errorf("%w %q: neighbour %d is not one of the part's %d neighbours", ErrApplication, c.s.app, i, len(c.s.links))
	}
	return c.s.links[i], nil
}

func rmnpFlags(f gridapp.Flags) rmnp.Flags {
	var out rmnp.Flags
	if f&gridapp.CTRL != 0 {
		out |= rmnp.CTRL
	} else {
		out |= rmnp.DATA
	}
	if f&gridapp.NoWait != 0 {
		out |= rmnp.NoWait
	}
	return out
}

// Mode returns the mode of the link to neighbour i (Async for an index
// that is no neighbour: Send and Receive then fail).
func (c comm) Mode(i int) gridapp.Mode {
	if l, err := c.link(i); err == nil && l.sync {
		return gridapp.Sync
	}
	return gridapp.Async
}

// Send is GRID_Send.
func (c comm) Send(ctx context.Context, i int, v []float64, flags gridapp.Flags) error {
	l, err := c.link(i)
	if err != nil {
		return err
	}
	if err := c.s.ep.SendFloat64s(ctx, l.peer, v, rmnpFlags(flags)); err != nil {
		return WrapErr(err, "send to rank %d", l.rank)
	}
	return nil
}

// Receive is GRID_Receive.
func (c comm) Receive(ctx context.Context, i int, v []float64, flags gridapp.Flags) (int, error) {
	l, err := c.link(i)
	if err != nil {
		return 0, err
	}
	n, err := c.s.ep.ReceiveFloat64s(ctx, l.peer, v, rmnpFlags(flags))
	if errors.Is(err, rmnp.ErrNoMessage) {
		return 0, gridapp.ErrNoMessage
	}
	if err != nil {
		return n, WrapErr(err, "receive from rank %d", l.rank)
	}
	return n, nil
}

// Wait is GRID_Wait.
func (c comm) Wait(ctx context.Context) (int, gridapp.Flags, error) {
	src, kind, err := c.s.ep.Wait(ctx)
	if err != nil {
		return 0, 0, WrapErr(err, "wait")
	}
	for i, l := range c.s.links {
		if l.peer == src {
			if kind&rmnp.CTRL != 0 {
				return i, gridapp.CTRL, nil
			}
			return i, gridapp.DATA, nil
		}
	}
	return 0, 0, fmt.Errorf("engine: message from peer %d, not a neighbour", src)
}

// Progress records the part's iteration and σ for the telemetry.
func (c comm) Progress(iteration int, sigma float64) {
	c.s.iter, c.s.sigma = iteration, sigma
	c.s.maybeReport(time.Now())
}

// Scheme is gridapp.Host's: the job's scheme.
func (c comm) Scheme() string { return string(c.s.t.Scheme) }

// Detector is gridapp.Host's: the run's termination detector.
func (c comm) Detector() string { return string(c.s.detector) }

// Link is gridapp.Host's: this node's link to neighbour i.
func (c comm) Link(i int) (network, local string, err error) {
	l, err := c.link(i)
	if err != nil {
		return "", "", err
	}
	for _, st := range c.s.ep.Stats().Links {
		if st.Peer == l.peer && st.Up {
			return st.Network, st.Local, nil
		}
	}
	return "", "", fmt.Errorf("engine: no link up to rank %d", l.rank)
}

// Usage is gridapp.Host's: the times and traffic of the process the part
// handed the computation to, shown as the node's (its traffic beside the
// worker's own links').
func (c comm) Usage(u gridapp.Usage) {
	s := c.s
	s.res.Compute, s.res.Send, s.res.Wait = u.Compute, u.Send, u.Wait
	s.res.Traffic = s.res.Traffic[:0]
	for _, t := range u.Traffic {
		s.res.Traffic = append(s.res.Traffic, NetTraffic{Network: t.Network, Messages: t.Messages, Bytes: t.Bytes, Skipped: t.Skipped})
	}
}

// Key is gridapp.Host's: a run id and secret derived from the run's.
func (c comm) Key(label string) ([16]byte, []byte) { return c.s.ep.DeriveKey(label) }

// NeighbourLost reports whether err says a neighbour's link went down
// (closed, broken, or already gone when a send looked for it): the
// consequence of that neighbour's failure, not this node's.
func NeighbourLost(err error) bool {
	return errors.Is(err, rmnp.ErrPeerDown) || errors.Is(err, rmnp.ErrPeerClosed) || errors.Is(err, rmnp.ErrUnknownPeer)
}

// Checkpoint is gridapp.Checkpoints: the Calculator is at a boundary every
// part passes at iteration; its part is checkpointed there when the
// plan's interval says so (the iteration counts as the part's).
func (c comm) Checkpoint(iteration int) {
	s := c.s
	s.iter = iteration
	if s.ckpt != nil && s.ckpt.writes != nil && iteration > 0 && s.ckpt.pace.fixed(iteration) {
		s.takeCheckpoint(nil)
	}
}

// CheckpointEvery is gridapp.Checkpoints': the plan's interval, 0 when
// this part takes no checkpoints.
func (c comm) CheckpointEvery() int {
	if c.s.ckpt == nil || c.s.ckpt.writes == nil {
		return 0
	}
	return c.s.ckpt.plan.Every
}
