package rmnp

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// float64Bytes reinterprets v as its little-endian wire bytes; valid only when the
// host is little-endian (hostOrder == orderLittle).
func float64Bytes(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

// SendFloat64s sends v as a message of little-endian float64s. On a little-endian
// host the slice is sent in place, without a per-element conversion.
func (e *Endpoint) SendFloat64s(ctx context.Context, dest PeerID, v []float64, flags Flags) error {
	if hostOrder == orderLittle {
		return e.Send(ctx, dest, float64Bytes(v), flags)
	}
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return e.Send(ctx, dest, b, flags)
}

// ReceiveFloat64s receives a message of little-endian float64s into v and returns
// the number of values. A message whose length is not a multiple of 8 is consumed
// and reported as ErrFrame.
func (e *Endpoint) ReceiveFloat64s(ctx context.Context, src PeerID, v []float64, flags Flags) (int, error) {
	var b []byte
	if hostOrder == orderLittle {
		b = float64Bytes(v)
	} else {
		b = make([]byte, 8*len(v))
	}
	n, err := e.Receive(ctx, src, b, flags)
	if err != nil {
		return n / 8, err
	}
	if n%8 != 0 {
		return n / 8, fmt.Errorf("%w: %d-byte message from peer %d is not float64s", ErrFrame, n, src)
	}
	if hostOrder != orderLittle {
		for i := 0; i < n/8; i++ {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return n / 8, nil
}
