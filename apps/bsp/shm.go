package bsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridtui/gridtui/bsp"
)

// share agrees with the other workers, before bsp_begin, on a shared file
// for the programs' barrier and puts: process 0's worker creates it and
// names it to the others with its token; it is used when every worker
// opened the same file (every process on one host), else pt.shm stays
// nil and every superstep goes through the workers.
func (pt *part) share(ctx context.Context, t bsp.Transport) error {
	n := pt.sub.Ranks
	if n < 2 || pt.noShare {
		return nil
	}
	if pt.sub.Rank != 0 {
		b, err := t.Receive(ctx, 0, nil)
		if err != nil {
			return fmt.Errorf("bsp: the shared file's name from process 0: %w", err)
		}
		path, token, _ := bytes.Cut(b, []byte{0})
		sh := openShared(string(path), append([]byte(nil), token...), n)
		if err := t.Send(ctx, 0, []byte{boolByte(sh != nil)}); err != nil {
			return fmt.Errorf("bsp: shared file: to process 0: %w", err)
		}
		if b, err = t.Receive(ctx, 0, nil); err != nil {
			return fmt.Errorf("bsp: the shared file's use from process 0: %w", err)
		}
		if len(b) == 1 && b[0] == 1 && sh != nil {
			pt.shm = sh
		} else if sh != nil {
			sh.close()
		}
		return nil
	}
	sh, _ := createShared(n) // without one, the workers carry the supersteps
	// Close removes it, should the run end during the agreement.
	pt.shm = sh
	var msg []byte
	if sh != nil {
		msg = append(append([]byte(sh.path), 0), sh.token...)
	}
	for d := 1; d < n; d++ {
		if err := t.Send(ctx, d, msg); err != nil {
			return fmt.Errorf("bsp: the shared file's name to process %d: %w", d, err)
		}
	}
	ok := sh != nil
	for d := 1; d < n; d++ {
		b, err := t.Receive(ctx, d, nil)
		if err != nil {
			return fmt.Errorf("bsp: shared file: from process %d: %w", d, err)
		}
		ok = ok && len(b) == 1 && b[0] == 1
	}
	for d := 1; d < n; d++ {
		if err := t.Send(ctx, d, []byte{boolByte(ok)}); err != nil {
			return fmt.Errorf("bsp: the shared file's use to process %d: %w", d, err)
		}
	}
	if !ok && sh != nil {
		sh.close()
		pt.shm = nil
	}
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// fast folds the supersteps the program ended in the shared file since
// the last call into the process's figures, and returns their figures.
func (pt *part) fast() bsp.Stats {
	if pt.shm == nil {
		return bsp.Stats{}
	}
	now := pt.shm.stats(pt.sub.Rank)
	d := bsp.Stats{
		Supersteps: now.Supersteps - pt.seen.Supersteps,
		Wait:       now.Wait - pt.seen.Wait,
		BytesOut:   now.BytesOut - pt.seen.BytesOut,
		BytesIn:    now.BytesIn - pt.seen.BytesIn,
		HMax:       now.HMax,
	}
	pt.seen = now
	pt.x.Superstep += d.Supersteps
	return d
}

// tick is how often a worker whose program meets the others in the shared
// file looks at it while it waits for the program's next frame.
const tick = 250 * time.Millisecond

// await waits for the program's next frame to begin when the programs
// share a file: a program that ends supersteps there, or waits there for
// the others, is not hung, and its supersteps show in the Run view. The
// timeout counts from its last sign of life.
func (pt *part) await(while string) error {
	if pt.shm == nil {
		return nil
	}
	rank := pt.sub.Rank
	alive, seen := time.Now(), pt.shm.stats(rank).Supersteps
	for {
		pt.p.conn.SetReadDeadline(time.Now().Add(tick))
		_, err := pt.p.in.Peek(1)
		var ne interface{ Timeout() bool }
		if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
			return nil // the frame, or the error readFrame reports
		}
		if err := pt.ctx.Err(); err != nil {
			return err
		}
		now := pt.shm.stats(rank).Supersteps
		switch {
		case now != seen || pt.shm.waiting(rank):
			alive, seen = time.Now(), now
			pt.c.Progress(pt.x.Superstep+now-pt.seen.Supersteps, 0)
		case pt.timeout > 0 && time.Since(alive) > pt.timeout:
			if d := now - pt.seen.Supersteps; d > 0 && pt.stepping {
				// Supersteps ended in the file since while was written.
				while = fmt.Sprintf("in superstep %d, without calling bsp_end", pt.x.Superstep+d)
			}
			return pt.p.fail("hung: no BSPlib call for %v %s%s", pt.timeout, while, pt.p.out.lastLine())
		}
	}
}
