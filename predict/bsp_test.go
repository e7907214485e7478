package predict

import (
	"errors"
	"os"
	"testing"
	"time"
)

func TestBSPParams(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadBSP(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("load of nothing: %v, want ErrNotExist", err)
	}
	p := BSPParams{Measured: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), Nodes: []string{"alpha-1", "beta-1"}, R: 1e9,
		Networks: map[string]BSPNetwork{
			AllPairs:   {G: 1e-9, L: 100e-6},
			"ethernet": {G: 10e-9, GCI: 1e-9, L: 1e-3, LCI: 1e-4, Pair: 1},
		}}
	if err := SaveBSP(dir, p); err != nil {
		t.Fatal(err)
	}
	q, err := LoadBSP(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Measured.Equal(p.Measured) || q.R != p.R || q.Networks["ethernet"] != p.Networks["ethernet"] {
		t.Fatalf("loaded %+v, saved %+v", q, p)
	}
	// W/r + h·g + l: 1e6 flops at 1 Gflop/s, 1000 bytes at 10 ns/byte, 1 ms.
	if d, ok := q.Superstep(1e6, 1000, "ethernet"); !ok || d != 2010*time.Microsecond {
		t.Errorf("ethernet superstep %v %v, want 2.01ms", d, ok)
	}
	// A network without figures of its own: all pairs'.
	if d, ok := q.Superstep(0, 1000, "infiniband"); !ok || d != 101*time.Microsecond {
		t.Errorf("infiniband superstep %v %v, want 101µs", d, ok)
	}
	if _, ok := (BSPParams{}).Superstep(1, 1, "unix"); ok {
		t.Error("a superstep predicted without parameters")
	}
	os.WriteFile(dir+"/"+BSPFile, []byte("{"), 0o644)
	if _, err := LoadBSP(dir); err == nil {
		t.Error("a broken file loaded")
	}
}
