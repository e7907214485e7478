package gridapp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Checkpointer is implemented by a Part whose state can be saved and
// restored: what lets a run survive the loss of the node that held it (the
// resilience section of the design; Charm++'s in-memory checkpoints). The
// environment calls both methods from the part's goroutine, only at an
// iteration boundary — after a Sweep (and after Advance, when a step ended)
// and before the next exchange — never concurrently with the other methods.
//
// Checkpoint writes everything the part's next iterations depend on: the
// iterate, the halos as they are (an asynchronous link keeps them across
// sweeps), counters and, for a Stepper, the steps done. It writes nothing
// NewPart rebuilds from the Subtask (the matrix, the load, the obstacle).
//
// Restore reads what Checkpoint wrote into a part freshly built by NewPart
// from the same Subtask (possibly on another node, with another number of
// cores). After Restore, the part's iterations are bit for bit those of the
// part that wrote the checkpoint: CheckCheckpoints tests it. A checkpoint
// that does not fit the part (another decomposition, a truncated stream) is
// an error, never a half-restored part. The environment frames, checksums
// and identifies the bytes (run, problem, rank, iteration); the part writes
// only its state. WriteState and ReadState do it for parts whose state is
// a few float64 buffers.
//
// A part without Checkpointer still runs; a lost node then fails its run,
// and the report says the application has no checkpoints.
type Checkpointer interface {
	Checkpoint(w io.Writer) error
	Restore(r io.Reader) error
}

// BoundedCheckpointer is implemented by a Checkpointer whose Checkpoint
// waits for something outside the worker (apps/exec: the program's answer,
// bounded only by the job's timeout). The environment calls
// CheckpointWithin where a checkpoint is a bonus it must not wait for: as
// an asynchronous attempt aborts, it keeps each part's state so that the
// next attempt resumes where the part stopped. Past d, CheckpointWithin
// fails, and the part is only closed after it; the next attempt restores
// the part from its last periodic checkpoint instead.
type BoundedCheckpointer interface {
	Checkpointer
	CheckpointWithin(w io.Writer, d time.Duration) error
}

// ErrState is wrapped by ReadState's and ReadFloats' errors: the bytes are
// not a state of this part's shape.
var ErrState = errors.New("gridapp: checkpoint state does not fit the part")

// maxStateFloats bounds a buffer ReadFloats allocates (1 GiB of float64).
const maxStateFloats = 1 << 27

// WriteState writes buffers as a part's state: for each, its length (uint64,
// little-endian) then its values (IEEE 754 bits, little-endian), so that
// ReadState gives back exactly the same bits.
func WriteState(w io.Writer, bufs ...[]float64) error {
	var scratch [8 << 10]byte
	for _, b := range bufs {
		binary.LittleEndian.PutUint64(scratch[:8], uint64(len(b)))
		if _, err := w.Write(scratch[:8]); err != nil {
			return fmt.Errorf("gridapp: write state: %w", err)
		}
		if raw := FloatBytes(b); raw != nil { // the same bytes, without a pass through scratch
			if _, err := w.Write(raw); err != nil {
				return fmt.Errorf("gridapp: write state: %w", err)
			}
			continue
		}
		for len(b) > 0 {
			n := min(len(b), len(scratch)/8)
			for i, v := range b[:n] {
				binary.LittleEndian.PutUint64(scratch[8*i:], math.Float64bits(v))
			}
			if _, err := w.Write(scratch[:8*n]); err != nil {
				return fmt.Errorf("gridapp: write state: %w", err)
			}
			b = b[n:]
		}
	}
	return nil
}

// ReadState reads what WriteState wrote into buffers of the same lengths, in
// the same order; a length that differs (a checkpoint of another
// decomposition) or a stream that ends early is an error wrapping ErrState,
// and the buffers' contents are then unspecified.
func ReadState(r io.Reader, bufs ...[]float64) error {
	for i, b := range bufs {
		n, err := readLen(r)
		if err != nil {
			return fmt.Errorf("%w: buffer %d: %w", ErrState, i, err)
		}
		if n != uint64(len(b)) {
			return fmt.Errorf("%w: buffer %d holds %d values, the part's %d", ErrState, i, n, len(b))
		}
		if err := readValues(r, b); err != nil {
			return fmt.Errorf("%w: buffer %d: %w", ErrState, i, err)
		}
	}
	return nil
}

// ReadFloats reads one buffer WriteState wrote, of any length up to max
// values (a part's state that grows, e.g. the time levels of the steps done).
func ReadFloats(r io.Reader, max int) ([]float64, error) {
	n, err := readLen(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	if n > uint64(min(max, maxStateFloats)) {
		return nil, fmt.Errorf("%w: buffer of %d values, at most %d expected", ErrState, n, max)
	}
	b := make([]float64, n)
	if err := readValues(r, b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	return b, nil
}

func readLen(r io.Reader) (uint64, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(h[:]), nil
}

func readValues(r io.Reader, b []float64) error {
	var scratch [8 << 10]byte
	for len(b) > 0 {
		n := min(len(b), len(scratch)/8)
		if _, err := io.ReadFull(r, scratch[:8*n]); err != nil {
			return err
		}
		for i := range b[:n] {
			b[i] = math.Float64frombits(binary.LittleEndian.Uint64(scratch[8*i:]))
		}
		b = b[n:]
	}
	return nil
}
