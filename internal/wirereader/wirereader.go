// Package wirereader walks a little-endian binary payload from outside (a
// frame on the wire, a program's message) and remembers whether it ran
// short, so that a decoder checks once at the end instead of after every
// field. The BSP model (bsp) and the BSPlib runner (apps/bsp) decode their
// frames with it.
package wirereader

import "encoding/binary"

// Reader walks B; Bad is set once a read asked for more than B held.
type Reader struct {
	B   []byte
	Bad bool
}

// U32 reads a little-endian uint32 (0 and Bad when B is short).
func (r *Reader) U32() int {
	if len(r.B) < 4 {
		r.Bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(r.B)
	r.B = r.B[4:]
	return int(v)
}

// U64 reads a little-endian uint64; a value above 2⁴⁸ (no length or offset
// this large is real) is refused as Bad, so that it never overflows an int.
func (r *Reader) U64() int {
	if len(r.B) < 8 {
		r.Bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(r.B)
	r.B = r.B[8:]
	if v > 1<<48 {
		r.Bad = true
		return 0
	}
	return int(v)
}

// Bytes returns the next n bytes, aliasing B (nil and Bad when B is short or
// n is negative).
func (r *Reader) Bytes(n int) []byte {
	if n < 0 || len(r.B) < n {
		r.Bad = true
		return nil
	}
	v := r.B[:n:n]
	r.B = r.B[n:]
	return v
}
