package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDirDropAfter: a rank's checkpoints past the iteration it restarted
// from are deleted, its earlier ones and the other ranks' kept.
func TestDirDropAfter(t *testing.T) {
	d := Dir{Path: t.TempDir(), Keep: 4}
	for _, rank := range []int{0, 1} {
		for it := uint64(100); it <= 400; it += 100 {
			if _, err := d.Save(Header{Run: "r", Rank: rank, Ranks: 2, Iteration: it}, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.DropAfter("r", 1, 200); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Iterations("r", 1); !slices.Equal(got, []uint64{200, 100}) {
		t.Errorf("rank 1 keeps %v, want [200 100]", got)
	}
	if got, _ := d.Iterations("r", 0); len(got) != 4 {
		t.Errorf("rank 0 keeps %v, want its four", got)
	}
}

// TestDirNewestHeader: the header of a rank's newest readable file, from
// its first bytes; a file of another rank or a broken one is passed over.
func TestDirNewestHeader(t *testing.T) {
	d := Dir{Path: t.TempDir(), Keep: 4}
	if _, err := d.NewestHeader("run", 1); !errors.Is(err, ErrNone) {
		t.Fatalf("no file: %v, want ErrNone", err)
	}
	for _, it := range []uint64{100, 200} {
		if _, err := d.Save(Header{Run: "run", Rank: 1, Ranks: 2, Step: 1, Iteration: it, End: it == 200}, []byte("state")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Save(Header{Run: "run", Rank: 0, Ranks: 2, Iteration: 300}, []byte("state")); err != nil {
		t.Fatal(err)
	}
	h, err := d.NewestHeader("run", 1)
	if err != nil || h.Iteration != 200 || h.Step != 1 || !h.End {
		t.Fatalf("newest of rank 1: %+v %v, want iteration 200, the end of step 2", h, err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, "run", "rank-1.iter-300.gtck"), []byte("GTCK"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err = d.NewestHeader("run", 1); err != nil || h.Iteration != 200 {
		t.Fatalf("past a broken newest: %+v %v, want iteration 200", h, err)
	}
}
