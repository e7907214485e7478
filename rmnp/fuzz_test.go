package rmnp

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/s2"
)

const fuzzMaxFrame = 1 << 16

// seedFrames returns real frame streams as the link writer produces them.
func seedFrames() [][]byte {
	var ping, away Header
	ping.Encode(TypePing, 0, 0, 0, 0)
	away.Encode(TypeGoAway, 0, 0, 0, 0)
	z := s2.Encode(nil, bytes.Repeat([]byte("halo"), 256))
	var zh Header
	zh.Encode(TypeMsg, WireDATA|WireCompressed, uint32(len(z)), 1024, 1)
	stream := append(rawFrame(TypeMsg, WireCTRL, []byte("tok_conv"), 1),
		rawFrame(TypeMsg, WireDATA|WireAsync, make([]byte, 64), 1)...)
	stream = append(stream, ping[:]...)
	stream = append(stream, rawFrame(TypeMsg, WireDATA, []byte("x"), 2)...)
	stream = append(stream, away[:]...)
	return [][]byte{
		stream,
		append(zh[:], z...),
		rawFrame(TypeMsg, WireCTRL, nil, 1),
		rawFrame(TypeMsg, WireDATA, make([]byte, padMin), 1), // padded
		rawFrame(TypeMsg, WireDATA, []byte("y"), 7),          // bad seq
		stream[:21], // truncated
	}
}

// decodeAll runs the link reader's decoding over r until an error.
func decodeAll(r io.Reader) error {
	fr := NewFrameReader(r, fuzzMaxFrame)
	buf := make([]byte, fuzzMaxFrame)
	for i := 0; ; i++ {
		h, err := fr.Next()
		if err != nil {
			return err
		}
		if h.Typ() != TypeMsg {
			continue
		}
		if h.Length() > fuzzMaxFrame || h.Raw() > fuzzMaxFrame {
			panic("header above MaxFrame accepted")
		}
		if err := fr.Payload(h, buf[:h.Raw()]); err != nil {
			return err
		}
		if cap(fr.zbuf) > fuzzMaxFrame {
			panic("compressed buffer above MaxFrame")
		}
	}
}

// FuzzFrameDecoder feeds the frame decoder random and truncated streams, whole, in
// two pieces and byte by byte (partial reads), as nats-server's parser fuzz test.
func FuzzFrameDecoder(f *testing.F) {
	for _, s := range seedFrames() {
		f.Add(s, uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := decodeAll(bytes.NewReader(data))
		c := int(cut) % (len(data) + 1)
		split := decodeAll(io.MultiReader(bytes.NewReader(data[:c]), bytes.NewReader(data[c:])))
		bytewise := decodeAll(iotest.OneByteReader(bytes.NewReader(data)))
		for _, err := range []error{whole, split, bytewise} {
			if err == nil {
				t.Fatal("decoder returned without error on a finite stream")
			}
		}
		if (whole == io.EOF) != (split == io.EOF) || (whole == io.EOF) != (bytewise == io.EOF) {
			t.Fatalf("piecewise reads changed the outcome: %v / %v / %v", whole, split, bytewise)
		}
	})
}

// script is a ReadWriter that reads a fixed input and discards what is written.
type script struct{ io.Reader }

func (script) Write(p []byte) (int, error) { return len(p), nil }

// FuzzHandshake feeds both sides of the handshake random and truncated peer input.
func FuzzHandshake(f *testing.F) {
	cfg := DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = testRun, testSecret, 2
	h := hello{version: ProtoVersion, order: orderLittle, mode: 1, options: optCompress,
		run: testRun, from: 1, to: 2, label: "infiniband"}
	var hb [HelloSize]byte
	h.Encode(&hb)
	a := accept{version: ProtoVersion, order: orderLittle, id: 2}
	var ab [AcceptSize]byte
	a.Encode(&ab)
	for _, s := range [][]byte{hb[:], ab[:], append(hb[:], make([]byte, AuthSize)...), hb[:50], nil} {
		f.Add(s, uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		c := int(cut) % (len(data) + 1)
		for _, r := range []io.Reader{
			bytes.NewReader(data),
			io.MultiReader(bytes.NewReader(data[:c]), bytes.NewReader(data[c:])),
			iotest.OneByteReader(bytes.NewReader(data)),
		} {
			_, err := AcceptHandshake(script{r}, &cfg, false)
			if err == nil {
				t.Fatal("acceptor authenticated random input")
			}
		}
		dcfg := cfg
		dcfg.Self = 1
		_, err := DialHandshake(script{bytes.NewReader(data)}, &dcfg, 2, LinkOptions{})
		if err == nil {
			t.Fatal("dialer authenticated random input")
		}
		if len(data) >= HelloSize {
			if _, err := decodeHello(data[:HelloSize]); err != nil && !errors.Is(err, ErrAuth) && !errors.Is(err, ErrVersion) {
				t.Fatalf("decodeHello error not classified: %v", err)
			}
		}
	})
}
