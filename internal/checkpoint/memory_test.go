package checkpoint

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func encoded(t *testing.T, h Header, payload string) []byte {
	t.Helper()
	b, err := Append(nil, h, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMemoryKeeps: the newest keep of each rank, the pinned ones and the
// recent ones stay; another run's checkpoint drops the previous run's.
func TestMemoryKeeps(t *testing.T) {
	m := NewMemory(2, 0)
	m.Window = 0
	h := Header{Run: "r1", Rank: 1, Ranks: 4}
	for it := uint64(25); it <= 150; it += 25 {
		h.Iteration = it
		pins := []uint64(nil)
		if it == 75 {
			pins = []uint64{50}
		}
		if _, err := m.Put(encoded(t, h, "x"), pins); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := m.Iterations("r1", 1), []uint64{150, 125, 50}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v (newest two and the pinned one)", got, want)
	}
	if m.Encoded(Header{Run: "r1", Rank: 1}, 100, false) != nil || m.Encoded(Header{Run: "r1", Rank: 1}, 0, true) == nil {
		t.Fatal("Encoded: an evicted iteration found, or the newest not")
	}
	m.Window = time.Minute
	for it := uint64(200); it <= 400; it += 25 {
		h.Iteration = it
		m.Put(encoded(t, h, "x"), nil)
	}
	if got := m.Iterations("r1", 1); len(got) != 12 {
		t.Fatalf("within the window every checkpoint stays: %v", got)
	}
	h.Run = "r2"
	m.Put(encoded(t, h, "x"), nil)
	if got := m.Iterations("r1", 1); got != nil {
		t.Fatalf("run r1's checkpoints kept after r2's: %v", got)
	}
	m.Drop("r2")
	if got := m.Iterations("r2", 1); got != nil {
		t.Fatalf("dropped run still held: %v", got)
	}
	if _, err := m.Put([]byte("GTCK garbage"), nil); err == nil {
		t.Fatal("a container that does not decode was kept")
	}
}

// TestMemorySparesOnlyEvicted: a kept checkpoint's buffer is never handed
// out for the next one. An evicted entry before a pinned one used to put
// the pinned entry's buffer among the spares (the compaction in place left
// it in the tail it spared): the next checkpoint written into that buffer
// replaced the pinned one's bytes (on the harness, a copy of another rank
// where the newest of rank 1 was: "another problem or decomposition").
func TestMemorySparesOnlyEvicted(t *testing.T) {
	m := NewMemory(2, 0)
	m.Window = 0
	h := Header{Run: "r1", Rank: 1, Ranks: 4}
	put := func(it uint64, pins []uint64) {
		t.Helper()
		h.Iteration = it
		enc := encoded(t, h, "part 1 at "+strconv.FormatUint(it, 10))
		data := append(m.Buffer(len(enc)), enc...)
		if _, err := m.Put(data, pins); err != nil {
			t.Fatal(err)
		}
	}
	for it := uint64(20); it <= 200; it += 20 {
		put(it, []uint64{20, 80})
	}
	for range spares {
		b := m.Buffer(64)
		b = b[:cap(b)]
		for i := range b {
			b[i] = 'X'
		}
	}
	for _, it := range m.Iterations("r1", 1) {
		enc := m.Encoded(Header{Run: "r1", Rank: 1}, it, false)
		if _, _, err := Verify(enc, Header{Run: "r1", Rank: 1, Ranks: 4}, it, false, 1<<20, "memory"); err != nil {
			t.Errorf("kept iteration %d overwritten through a spare buffer: %v", it, err)
		}
	}
}

// TestVerify: a copy is checked like a file: checksum, run, identity,
// rank, and the iteration asked for; the error names where it came from.
func TestVerify(t *testing.T) {
	want := Header{Run: "r", Identity: [32]byte{1}, Rank: 2, Ranks: 4, Iteration: 50}
	good := encoded(t, want, "state")
	if h, p, err := Verify(good, want, 50, false, 1<<20, "copy on beta-1"); err != nil || h.Iteration != 50 || string(p) != "state" {
		t.Fatalf("sound copy: %v %v %q", err, h, p)
	}
	corrupt := slices.Clone(good)
	corrupt[len(corrupt)-6] ^= 1
	other := want
	other.Identity = [32]byte{2}
	cases := []struct {
		name string
		data []byte
		it   uint64
		is   error
	}{
		{"corrupt", corrupt, 50, ErrCorrupt},
		{"truncated", good[:len(good)-3], 50, ErrTruncated},
		{"foreign", encoded(t, other, "state"), 50, ErrForeign},
		{"other iteration", good, 75, ErrCorrupt},
	}
	for _, c := range cases {
		_, _, err := Verify(c.data, want, c.it, false, 1<<20, "copy on beta-1")
		if !errors.Is(err, c.is) || err == nil || !strings.Contains(err.Error(), "copy on beta-1") {
			t.Errorf("%s: %v, want %v naming the node", c.name, err, c.is)
		}
	}
}

// FuzzParse: Parse, which checks a copy in place, accepts exactly what Read
// accepts as a whole checkpoint, with the same header and payload.
func FuzzParse(f *testing.F) {
	good, _ := Append(nil, Header{Run: "r", Rank: 1, Ranks: 2, Iteration: 9}, []byte("state"))
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(slices.Clone(good), 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		h1, p1, err1 := Parse(b, 1<<20)
		r := bytes.NewReader(b)
		h2, p2, err2 := Read(r, 1<<20)
		if err2 == nil && r.Len() != 0 {
			err2 = ErrCorrupt
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Parse %v, Read %v", err1, err2)
		}
		if err1 == nil && (h1 != h2 || !bytes.Equal(p1, p2)) {
			t.Fatalf("Parse %v %q, Read %v %q", h1, p1, h2, p2)
		}
	})
}

// FuzzParseHeader: ParseHeader reads the header of whatever Parse
// accepts, the same, also from the header's bytes alone.
func FuzzParseHeader(f *testing.F) {
	good, _ := Append(nil, Header{Run: "r", Rank: 1, Ranks: 2, Step: 3, Iteration: 9}, []byte("state"))
	f.Add(good)
	f.Add(good[:HeaderLen(Header{Run: "r"})])
	f.Add(good[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err == nil && len(b) < HeaderLen(h) {
			t.Fatalf("header %+v read from %d bytes, want %d", h, len(b), HeaderLen(h))
		}
		if err == nil {
			if h2, err2 := ParseHeader(b[:HeaderLen(h)]); err2 != nil || h2 != h {
				t.Fatalf("from the header alone: %+v %v, want %+v", h2, err2, h)
			}
		}
		if h1, _, err1 := Parse(b, 1<<20); err1 == nil && (err != nil || h != h1) {
			t.Fatalf("Parse %+v, ParseHeader %+v %v", h1, h, err)
		}
	})
}

// TestSeal: a payload serialized after HeaderLen bytes of room and sealed
// is the container Append writes, and Parse gives the payload back.
func TestSeal(t *testing.T) {
	h := Header{Run: "run-7", Rank: 2, Ranks: 4, Step: 1, Iteration: 800}
	h.Identity[3] = 9
	payload := []byte("the state of a part")
	want, err := Append(nil, h, payload)
	if err != nil {
		t.Fatal(err)
	}
	buf := append(make([]byte, HeaderLen(h), HeaderLen(h)+len(payload)+4), payload...)
	got, err := Seal(buf, h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("sealed %x\nappended %x", got, want)
	}
	if &got[0] != &buf[0] {
		t.Error("Seal copied a container that had room for its checksum")
	}
	if _, p, err := Parse(got, 1<<20); err != nil || !bytes.Equal(p, payload) {
		t.Errorf("Parse: %q, %v", p, err)
	}
	if _, err := Seal(buf[:3], h); err == nil {
		t.Error("Seal of 3 bytes: no error")
	}
}

// TestMemoryDropAfter: a rank's checkpoints past the iteration it
// restarted from are forgotten, even pinned ones, and the next checkpoints
// come after it; the other ranks' stay.
func TestMemoryDropAfter(t *testing.T) {
	m := NewMemory(4, 0)
	h := Header{Run: "r", Rank: 1, Ranks: 4}
	for it := uint64(100); it <= 400; it += 100 {
		h.Iteration = it
		m.Put(encoded(t, h, "x"), []uint64{300})
		h.Rank = 2
		m.Put(encoded(t, h, "y"), nil)
		h.Rank = 1
	}
	m.DropAfter("other run", 1, 0)
	m.DropAfter("r", 1, 200)
	if got, want := m.Iterations("r", 1), []uint64{200, 100}; !slices.Equal(got, want) {
		t.Fatalf("rank 1 holds %v, want %v", got, want)
	}
	if got := m.Iterations("r", 2); len(got) != 4 {
		t.Fatalf("rank 2 holds %v, want its four", got)
	}
	h.Iteration = 250
	m.Put(encoded(t, h, "w"), nil)
	if _, payload, err := Read(bytes.NewReader(m.Encoded(Header{Run: "r", Rank: 1}, 0, true)), 1<<20); err != nil || string(payload) != "w" {
		t.Fatalf("newest: %q %v, want the checkpoint after the restart", payload, err)
	}
}

// TestMemoryKeepIn: a container kept in a larger buffer (after a message's
// framing) is handed back whole once evicted, so that the next one of the
// same size fits it again.
func TestMemoryKeepIn(t *testing.T) {
	m := NewMemory(2, 0)
	h := Header{Run: "r1", Rank: 1, Ranks: 4}
	const room = 100
	var first []byte
	for it := uint64(1); it <= 3; it++ {
		h.Iteration = it
		enc := encoded(t, h, "part 1")
		buf := append(make([]byte, room, room+len(enc)), enc...)
		if it == 1 {
			first = buf
		}
		if _, err := m.PutIn(buf[room:], buf, nil); err != nil {
			t.Fatal(err)
		}
	}
	b := m.Buffer(room + len(encoded(t, h, "part 1")))
	if cap(b) != cap(first) || &b[:1][0] != &first[0] {
		t.Fatalf("the evicted buffer not handed back whole: cap %d, want %d", cap(b), cap(first))
	}
}
