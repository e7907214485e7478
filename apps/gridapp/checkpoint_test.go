package gridapp

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestStateRoundTrip(t *testing.T) {
	a := []float64{1, -0.0, math.Inf(1), math.NaN(), 3.25}
	b := make([]float64, 3000) // more than one scratch block
	for i := range b {
		b[i] = float64(i) / 7
	}
	var buf bytes.Buffer
	if err := WriteState(&buf, a, b, nil); err != nil {
		t.Fatal(err)
	}
	ga, gb, gc := make([]float64, len(a)), make([]float64, len(b)), []float64{}
	if err := ReadState(bytes.NewReader(buf.Bytes()), ga, gb, gc); err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(ga[i]) {
			t.Fatalf("value %d: %v, want %v", i, ga[i], a[i])
		}
	}
	for i := range b {
		if b[i] != gb[i] {
			t.Fatalf("value %d: %v, want %v", i, gb[i], b[i])
		}
	}
}

func TestStateRefused(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteState(&buf, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		data []byte
		bufs [][]float64
	}{
		"other length": {buf.Bytes(), [][]float64{make([]float64, 4)}},
		"truncated":    {buf.Bytes()[:buf.Len()-1], [][]float64{make([]float64, 3)}},
		"missing":      {buf.Bytes(), [][]float64{make([]float64, 3), make([]float64, 1)}},
		"empty":        {nil, [][]float64{make([]float64, 3)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := ReadState(bytes.NewReader(tc.data), tc.bufs...); !errors.Is(err, ErrState) {
				t.Fatalf("error %v, want ErrState", err)
			}
		})
	}
	if _, err := ReadFloats(bytes.NewReader(buf.Bytes()), 2); !errors.Is(err, ErrState) {
		t.Fatalf("ReadFloats over its bound: %v", err)
	}
	if got, err := ReadFloats(bytes.NewReader(buf.Bytes()), 3); err != nil || len(got) != 3 || got[2] != 3 {
		t.Fatalf("ReadFloats: %v %v", got, err)
	}
}
