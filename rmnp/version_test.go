package rmnp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestVersionNegotiation connects a dialer offering version 1 and one offering
// the current version: both ends agree on the offer, frames carry it, only version
// 2 pads large payloads, and the byte counters count what went on the wire.
func TestVersionNegotiation(t *testing.T) {
	for _, v := range []uint8{minVersion, ProtoVersion} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testVersionNegotiation(t, v) })
	}
}

func testVersionNegotiation(t *testing.T, v uint8) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr, maxVersion: v})
		for _, e := range []*Endpoint{a, b} {
			for _, p := range e.peers {
				if got := p.links[0].info.version; got != v {
					t.Fatalf("offered v%d, link speaks v%d", v, got)
				}
			}
		}
		ctx := testCtx(t)
		sizes := []int{100, padMin, 64 << 10}
		buf := make([]byte, 64<<10)
		var wire uint64
		for i, size := range sizes {
			if err := a.Send(ctx, 2, patterned(i, size), DATA); err != nil {
				t.Fatal(err)
			}
			n, err := b.Receive(ctx, 1, buf, DATA)
			if err != nil || !bytes.Equal(buf[:n], patterned(i, size)) {
				t.Fatalf("v%d %d B: got %d B, %v", v, size, n, err)
			}
			wire += uint64(HeaderSize + padFor(v, TypeMsg, uint32(size)) + size)
		}
		if s, r := linkStats(t, a), linkStats(t, b); s.BytesSent != wire || r.BytesReceived != wire {
			t.Fatalf("v%d: sent %d, received %d wire bytes, want %d", v, s.BytesSent, r.BytesReceived, wire)
		}
	})
}

// TestAcceptVersion checks the acceptor's answer to the versions a dialer may offer:
// the highest both know, or a refusal below minVersion.
func TestAcceptVersion(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = testRun, testSecret, 2
	for _, tc := range []struct {
		offer, want uint8
		status      uint8
	}{
		{1, 1, statusOK}, {2, 2, statusOK}, {9, ProtoVersion, statusOK}, {0, ProtoVersion, statusVersion},
	} {
		t.Run(fmt.Sprintf("offer v%d", tc.offer), func(t *testing.T) {
			h := hello{version: tc.offer, order: hostOrder, run: testRun, from: 1, to: 2}
			var hb [HelloSize]byte
			h.Encode(&hb)
			var out bytes.Buffer
			_, _ = AcceptHandshake(struct {
				io.Reader
				io.Writer
			}{bytes.NewReader(hb[:]), &out}, &cfg, false)
			ab := out.Bytes()
			if len(ab) < AcceptSize || ab[4] != tc.want || ab[6] != tc.status {
				t.Fatalf("accept % x, want version %d status %d", ab, tc.want, tc.status)
			}
		})
	}
}

// TestFramePad checks the pad rule of spec.md §4 on the decoder.
func TestFramePad(t *testing.T) {
	big := make([]byte, padMin)
	withPad := func(v uint8, pad byte, padding []byte, payload []byte) []byte {
		var h Header
		h.EncodeV(v, TypeMsg, WireDATA, uint32(len(payload)), uint32(len(payload)), 1)
		h[3] = pad
		return append(append(h[:], padding...), payload...)
	}
	for _, tc := range []struct {
		name    string
		version uint8
		stream  []byte
		want    string // "" = decodes
	}{
		{"v2 padded", 2, withPad(2, maxPad, make([]byte, maxPad), big), ""},
		{"v2 small unpadded", 2, withPad(2, 0, nil, []byte("x")), ""},
		{"v2 large unpadded", 2, withPad(2, 0, nil, big), "pad 0, want 48"},
		{"v2 small padded", 2, withPad(2, maxPad, make([]byte, maxPad), []byte("x")), "pad 48, want 0"},
		{"v2 odd pad", 2, withPad(2, 8, make([]byte, 8), big), "pad 8, want 48"},
		{"v2 non-zero pad", 2, withPad(2, maxPad, bytes.Repeat([]byte{1}, maxPad), big), "non-zero pad"},
		{"v2 truncated pad", 2, withPad(2, maxPad, make([]byte, maxPad), big)[:36], "unexpected EOF"},
		{"v1 unpadded", 1, withPad(1, 0, nil, big), ""},
		{"v1 padded", 1, withPad(1, maxPad, make([]byte, maxPad), big), "pad 48, want 0"},
		{"v2 frame on v1 link", 1, withPad(2, 0, nil, []byte("x")), "version 2 on a version 1 link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := NewFrameReader(bytes.NewReader(tc.stream), 1<<20)
			fr.Version = tc.version
			h, err := fr.Next()
			if err == nil {
				dst := make([]byte, h.Raw())
				if err = fr.Payload(h, dst); err == nil && h.Size() != uint64(len(tc.stream)) {
					t.Fatalf("frame size %d, stream %d", h.Size(), len(tc.stream))
				}
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("decode: %v, want error with %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, ErrFrame) && !errors.Is(err, ErrVersion) && err != io.ErrUnexpectedEOF:
				t.Fatalf("error %v not classified", err)
			}
		})
	}
}
