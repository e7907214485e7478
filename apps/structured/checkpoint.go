package structured

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// ErrState is wrapped by Restore's errors: the bytes are not a state of
// this block's shape (another decomposition, a truncated stream).
var ErrState = errors.New("structured: checkpoint state does not fit the block")

// LocalState is implemented by a Local that keeps state of its own across
// sweeps (e.g. heat's previous time level): the Block's Checkpoint and
// Restore call it after their own.
type LocalState interface {
	Checkpoint(w io.Writer) error
	Restore(r io.Reader) error
}

// Checkpoint writes the block's state at an iteration boundary: the sweeps
// of the current step and of the steps done, the levels kept (a series),
// U with its ghost layers, the halos as they are, then the Local's state
// (LocalState). It writes nothing NewPart rebuilds.
func (b *Block) Checkpoint(w io.Writer) error {
	counts := make([]float64, 0, len(b.sweeps)+1)
	counts = append(counts, float64(b.k))
	for _, s := range b.sweeps {
		counts = append(counts, float64(s))
	}
	for _, buf := range append([][]float64{counts, b.levels, b.U}, b.halo...) {
		if err := WriteFloats(w, buf); err != nil {
			return err
		}
	}
	if ls, ok := b.local.(LocalState); ok {
		return ls.Checkpoint(w)
	}
	return nil
}

// CheckpointSize is the size of what Checkpoint writes, in bytes, but for
// the Local's own state (LocalState), which it counts as one more U: the
// environment serializes the first checkpoint into a buffer of about that
// size rather than one that grows.
func (b *Block) CheckpointSize() int {
	n := 8 * (2 + len(b.sweeps) + 1 + len(b.levels) + 1 + len(b.U)) // each buffer with its length; counts are k and the sweeps
	for _, h := range b.halo {
		n += 8 * (1 + len(h))
	}
	if _, ok := b.local.(LocalState); ok {
		n += 8 * (1 + len(b.U))
	}
	return n
}

// Restore reads a state Checkpoint wrote into a block freshly built for the
// same box (the ghosts go into both iterates, as Received keeps them).
func (b *Block) Restore(r io.Reader) error {
	counts, err := ReadFloats(r, b.steps+1)
	if err != nil || len(counts) < 1 {
		return fmt.Errorf("%w: the sweeps: %w", ErrState, err)
	}
	levels, err := ReadFloats(r, (len(counts)-1)*b.Box.Points())
	if err != nil {
		return err
	}
	if b.series && len(levels) != (len(counts)-1)*b.Box.Points() || !b.series && len(levels) != 0 {
		return fmt.Errorf("%w: %d level values for %d steps done", ErrState, len(levels), len(counts)-1)
	}
	for i, buf := range append([][]float64{b.U}, b.halo...) {
		got, err := ReadFloats(r, len(buf))
		if err != nil {
			return err
		}
		if len(got) != len(buf) {
			return fmt.Errorf("%w: buffer %d holds %d values, the block's %d", ErrState, i, len(got), len(buf))
		}
		copy(buf, got)
	}
	if ls, ok := b.local.(LocalState); ok {
		if err := ls.Restore(r); err != nil {
			return err
		}
	}
	b.k = int(counts[0])
	b.sweeps = b.sweeps[:0]
	for _, s := range counts[1:] {
		b.sweeps = append(b.sweeps, int(s))
	}
	b.levels = append(b.levels[:0], levels...)
	copy(b.Next, b.U)
	return nil
}

// WriteFloats writes buf as its length (uint64) then its values' IEEE 754
// bits, little-endian: ReadFloats gives back the same bits.
func WriteFloats(w io.Writer, buf []float64) error {
	// In pieces of one small buffer: a checkpoint of a large block used to
	// allocate (and the runtime to zero, fault in and later return) its
	// whole size every time (docs/bench/speed.md); the bytes are the same.
	var piece [8 << 10]byte
	binary.LittleEndian.PutUint64(piece[:], uint64(len(buf)))
	if raw := gridapp.FloatBytes(buf); raw != nil { // the values' bytes as they are in memory
		if _, err := w.Write(piece[:8]); err != nil {
			return fmt.Errorf("structured: write state: %w", err)
		}
		if _, err := w.Write(raw); err != nil {
			return fmt.Errorf("structured: write state: %w", err)
		}
		return nil
	}
	n := 8
	for _, v := range buf {
		if n == len(piece) {
			if _, err := w.Write(piece[:n]); err != nil {
				return fmt.Errorf("structured: write state: %w", err)
			}
			n = 0
		}
		binary.LittleEndian.PutUint64(piece[n:], math.Float64bits(v))
		n += 8
	}
	if _, err := w.Write(piece[:n]); err != nil {
		return fmt.Errorf("structured: write state: %w", err)
	}
	return nil
}

// ReadFloats reads one buffer WriteFloats wrote, of at most max values.
func ReadFloats(r io.Reader, max int) ([]float64, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	n := binary.LittleEndian.Uint64(h[:])
	if n > uint64(max) {
		return nil, fmt.Errorf("%w: a buffer of %d values, at most %d expected", ErrState, n, max)
	}
	b := make([]byte, 8*n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}
