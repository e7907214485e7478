package deploy

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func validBoot() Boot {
	return Boot{Node: "alpha-1", RunID: [16]byte{9}, Secret: bytes.Repeat([]byte{7}, 32),
		Listen: []string{"tcp://127.16.64.10:0", "unix:///tmp/a.sock"}, Cores: 2, Cluster: "alpha"}
}

func TestBootRoundTripLeavesRestOfStdin(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBoot(&buf, validBoot()); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("rest")
	got, err := ReadBoot(iotest.OneByteReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if got.Node != "alpha-1" || got.RunID[0] != 9 || len(got.Secret) != 32 || got.Listen[1] != "unix:///tmp/a.sock" {
		t.Fatalf("round trip gave %+v", got)
	}
	if rest, _ := io.ReadAll(&buf); string(rest) != "rest" {
		t.Fatalf("ReadBoot consumed past its line: %q left", rest)
	}
}

func TestReadBootRejects(t *testing.T) {
	mut := func(f func(*Boot)) string {
		b := validBoot()
		f(&b)
		var buf bytes.Buffer
		WriteBoot(&buf, b)
		return buf.String()
	}
	tests := []struct {
		name, in string
		want     error
		text     string
	}{
		{name: "empty", in: "", want: io.ErrUnexpectedEOF},
		{name: "not json", in: "hello\n", want: ErrBadBoot},
		{name: "unknown field", in: `{"Node":"a","Bogus":1}` + "\n", want: ErrBadBoot, text: "Bogus"},
		{name: "no node", in: mut(func(b *Boot) { b.Node = "" }), want: ErrBadBoot, text: "empty node"},
		{name: "zero run id", in: mut(func(b *Boot) { b.RunID = [16]byte{} }), want: ErrBadBoot, text: "run id"},
		{name: "short secret", in: mut(func(b *Boot) { b.Secret = []byte("x") }), want: ErrBadBoot, text: "secret"},
		{name: "negative cores", in: mut(func(b *Boot) { b.Cores = -1 }), want: ErrBadBoot, text: "cores"},
		{name: "bad listen", in: mut(func(b *Boot) { b.Listen = []string{"udp://x"} }), want: ErrBadBoot, text: "udp://x"},
		{name: "too long", in: strings.Repeat("x", maxLine+10) + "\n", want: ErrLineTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadBoot(strings.NewReader(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
			if strings.Contains(err.Error(), string(validBoot().Secret)) {
				t.Fatalf("error leaks the secret: %v", err)
			}
		})
	}
}

func TestReadHello(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  bool
	}{
		{name: "good", in: `{"Node":"a","PID":12,"Listen":["tcp://127.0.0.1:4000"]}` + "\n"},
		{name: "other node", in: `{"Node":"b","PID":12}` + "\n", wantErr: true},
		{name: "no pid", in: `{"Node":"a"}` + "\n", wantErr: true},
		{name: "garbage", in: "Welcome to host a!\n", wantErr: true},
		{name: "eof", in: "", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadHello(strings.NewReader(tc.in), "a")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err == nil && (h.PID != 12 || h.Listen[0] != "tcp://127.0.0.1:4000") {
				t.Fatalf("hello = %+v", h)
			}
		})
	}
}

// FuzzReadBoot feeds arbitrary stdin to the worker's boot reader, whole and
// in two pieces: it must never panic, and what it accepts must validate.
func FuzzReadBoot(f *testing.F) {
	var buf bytes.Buffer
	WriteBoot(&buf, validBoot())
	f.Add(buf.Bytes(), 10)
	f.Add([]byte(`{"Node":"x"}`+"\n"), 3)
	f.Add([]byte("\n\n"), 1)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		for _, r := range []io.Reader{bytes.NewReader(in), splitReader(in, cut)} {
			b, err := ReadBoot(r)
			if err == nil {
				if verr := b.Validate(); verr != nil {
					t.Fatalf("accepted an invalid boot: %v", verr)
				}
			}
		}
		ReadHello(bytes.NewReader(in), "x")
	})
}

func splitReader(in []byte, cut int) io.Reader {
	if cut < 0 {
		cut = -cut
	}
	if len(in) > 0 {
		cut %= len(in) + 1
	} else {
		cut = 0
	}
	return io.MultiReader(bytes.NewReader(in[:cut]), bytes.NewReader(in[cut:]))
}
