package checkpoint

import (
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
