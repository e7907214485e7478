package bsp

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzParseStep feeds the decoder of a program's superstep arbitrary
// bytes (the program is outside input): refuse or decode, never panic.
func FuzzParseStep(f *testing.F) {
	le := binary.LittleEndian
	var b []byte
	for _, v := range []uint32{1, 0, 4, 4, 1, 1, 1} {
		b = le.AppendUint32(b, v)
	}
	b = le.AppendUint32(b, 1) // get: pid, reg, off, len
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint32(b, 8)
	b = le.AppendUint32(b, 1) // message: pid, len, tag, payload
	b = le.AppendUint32(b, 2)
	b = append(b, "taghi"...)
	b = le.AppendUint32(b, 1) // put: pid, reg, off, len, data
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint32(b, 3)
	b = append(b, "abc"...)
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		parseStep(b, false)
	})
}

// FuzzReadFrame reads frames from arbitrary bytes, whole and in two
// pieces.
func FuzzReadFrame(f *testing.F) {
	f.Add(appendHeader(nil, kindSync, 0, 3), []byte("abc"))
	f.Add(appendHeader(nil, kindAbort, 2, 1<<40), []byte{})
	f.Fuzz(func(t *testing.T, h, p []byte) {
		readFrame(bytes.NewReader(append(h, p...)), nil)
	})
}
