package gridapp

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian is whether this machine keeps a float64's bits in the
// checkpoint's byte order: then a buffer's bytes are written as they are
// in memory (one copy, no conversion).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// FloatBytes returns the bytes of b as WriteState writes its values
// (IEEE 754 bits, little-endian), aliasing b, or nil on a big-endian
// machine (the caller then converts). The caller must not keep them past
// b's next change.
func FloatBytes(b []float64) []byte {
	if !littleEndian || len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), 8*len(b))
}
