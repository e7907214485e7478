package checkpoint

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func header() Header {
	return Header{Run: "run-42", Identity: Identity("poisson", map[string]string{"n": "64"}, [][]byte{[]byte("a"), []byte("b")}, [][]int{{1}, {0}}),
		Rank: 1, Ranks: 2, Step: 0, Iteration: 300}
}

func TestRoundTrip(t *testing.T) {
	data, err := Append(nil, header(), []byte("state"))
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]io.Reader{
		"whole":    bytes.NewReader(data),
		"one byte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
	}
	for name, r := range readers {
		h, p, err := Read(r, 1<<20)
		if err != nil || string(p) != "state" || h != header() {
			t.Fatalf("%s: %+v %q %v", name, h, p, err)
		}
	}
	if err := Check(header(), header()); err != nil {
		t.Fatal(err)
	}
}

// TestStepEndRoundTrip: a checkpoint of a step's end (Header.End) reads
// back as one, by Read, Parse and ParseHeader, and its step is kept.
func TestStepEndRoundTrip(t *testing.T) {
	for _, end := range []bool{false, true} {
		want := header()
		want.Step, want.End = 5, end
		data, err := Append(nil, want, []byte("state"))
		if err != nil {
			t.Fatal(err)
		}
		h, _, err := Read(bytes.NewReader(data), 1<<20)
		if err != nil || h != want {
			t.Fatalf("read: %+v %v, want %+v", h, err, want)
		}
		if h, _, err = Parse(data, 1<<20); err != nil || h != want {
			t.Fatalf("parse: %+v %v, want %+v", h, err, want)
		}
		if h, err = ParseHeader(data[:HeaderLen(want)]); err != nil || h != want {
			t.Fatalf("header: %+v %v, want %+v", h, err, want)
		}
	}
}

func TestRefused(t *testing.T) {
	data, _ := Append(nil, header(), []byte("the state of a part"))
	flip := func(i int) []byte {
		b := bytes.Clone(data)
		b[i] ^= 0x10
		return b
	}
	tests := map[string]struct {
		data []byte
		want error
	}{
		"empty":          {nil, ErrTruncated},
		"header cut":     {data[:20], ErrTruncated},
		"payload cut":    {data[:len(data)-8], ErrTruncated},
		"checksum cut":   {data[:len(data)-1], ErrTruncated},
		"bad magic":      {flip(0), ErrCorrupt},
		"bad version":    {flip(4), ErrCorrupt},
		"payload bit":    {flip(len(data) - 10), ErrCorrupt},
		"iteration bit":  {flip(6 + 6 + 32 + 12), ErrCorrupt},
		"checksum bit":   {flip(len(data) - 2), ErrCorrupt},
		"length too big": {flip(6 + 6 + 32 + 20 + 7), ErrCorrupt},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Read(bytes.NewReader(tc.data), 1<<20); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	foreign := map[string]func(*Header){
		"run":           func(h *Header) { h.Run = "run-43" },
		"decomposition": func(h *Header) { h.Identity[3]++ },
		"rank":          func(h *Header) { h.Rank = 0 },
		"ranks":         func(h *Header) { h.Ranks = 3 },
	}
	for name, change := range foreign {
		t.Run("foreign "+name, func(t *testing.T) {
			want := header()
			change(&want)
			if err := Check(header(), want); !errors.Is(err, ErrForeign) {
				t.Fatalf("Check: %v, want ErrForeign", err)
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	base := Identity("poisson", map[string]string{"n": "64", "eps": "1e-9"}, [][]byte{[]byte("x")}, [][]int{{}})
	same := Identity("poisson", map[string]string{"eps": "1e-9", "n": "64"}, [][]byte{[]byte("x")}, [][]int{{}})
	if base != same {
		t.Fatal("identity depends on the parameters' order")
	}
	for name, id := range map[string][32]byte{
		"app":   Identity("heat", map[string]string{"n": "64", "eps": "1e-9"}, [][]byte{[]byte("x")}, [][]int{{}}),
		"param": Identity("poisson", map[string]string{"n": "65", "eps": "1e-9"}, [][]byte{[]byte("x")}, [][]int{{}}),
		"spec":  Identity("poisson", map[string]string{"n": "64", "eps": "1e-9"}, [][]byte{[]byte("y")}, [][]int{{}}),
		"split": Identity("poisson", map[string]string{"n": "64", "eps": "1e-9"}, [][]byte{[]byte("x"), nil}, [][]int{{}, {}}),
	} {
		if id == base {
			t.Errorf("%s: same identity", name)
		}
	}
}

func TestDir(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	h := header()
	for it := uint64(100); it <= 400; it += 100 {
		h.Iteration = it
		if _, err := d.Save(h, []byte{byte(it / 100)}); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := d.files(filepath.Join(d.Path, h.Run), h.Rank)
	if len(files) != 2 || files[0].iter != 400 || files[1].iter != 300 {
		t.Fatalf("kept %v, want iterations 400 and 300", files)
	}
	got, p, refused, err := d.Latest(header())
	if err != nil || got.Iteration != 400 || p[0] != 4 || len(refused) != 0 {
		t.Fatalf("Latest: %+v %v %v %v", got, p, refused, err)
	}
	if its, err := d.Iterations(h.Run, h.Rank); err != nil || len(its) != 2 || its[0] != 400 {
		t.Fatalf("Iterations: %v %v", its, err)
	}
	if got, p, err := d.Load(header(), 300); err != nil || got.Iteration != 300 || p[0] != 3 {
		t.Fatalf("Load 300: %+v %v %v", got, p, err)
	}
	if _, _, err := d.Load(header(), 200); err == nil {
		t.Fatal("Load of a removed checkpoint succeeded")
	}
	// A torn newest copy: the one before is used, and the refusal names the file.
	if err := os.Truncate(files[0].path, 30); err != nil {
		t.Fatal(err)
	}
	got, _, refused, err = d.Latest(header())
	if err != nil || got.Iteration != 300 || len(refused) != 1 || !errors.Is(refused[0].Err, ErrTruncated) ||
		!strings.Contains(refused[0].Err.Error(), files[0].path) {
		t.Fatalf("Latest after a torn write: %+v %v %v", got, refused, err)
	}
	// Another decomposition: nothing usable.
	other := header()
	other.Identity[0]++
	if _, _, refused, err := d.Latest(other); !errors.Is(err, ErrNone) || len(refused) != 2 {
		t.Fatalf("Latest of another decomposition: %v %v", refused, err)
	}
	if _, err := d.Save(Header{Run: "../x", Ranks: 1}, nil); err == nil {
		t.Fatal("a run id that leaves the directory was accepted")
	}
	if d.MarkedNone(h.Run) {
		t.Fatal("a run with checkpoints is marked as having none")
	}
	d.MarkNone("rod-run", "rod")
	if !d.MarkedNone("rod-run") {
		t.Fatal("MarkNone left no mark")
	}
	if left, _ := filepath.Glob(filepath.Join(d.Path, h.Run, ".tmp-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// FuzzRead: no input panics or allocates beyond the bound; what Read
// accepts re-encodes to the same bytes; a one-byte-at-a-time reader agrees.
func FuzzRead(f *testing.F) {
	good, _ := Append(nil, header(), []byte("state"))
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte("GTCK\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, p, err := Read(bytes.NewReader(data), 1<<16)
		h2, p2, err2 := Read(iotest.OneByteReader(bytes.NewReader(data)), 1<<16)
		if (err == nil) != (err2 == nil) || h != h2 || !bytes.Equal(p, p2) {
			t.Fatalf("whole and one-byte reads disagree: %v / %v", err, err2)
		}
		if err != nil {
			return
		}
		back, err := Append(nil, h, p)
		if err != nil || !bytes.Equal(back, data[:len(back)]) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}
