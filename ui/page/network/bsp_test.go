package network

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/predict"
)

// TestBSPNote: the Htable's title names g and l per network as `gridtui
// bench bsp` kept them, nothing without them.
func TestBSPNote(t *testing.T) {
	if got := bspNote(nil); got != "" {
		t.Errorf("no parameters: %q", got)
	}
	p := &predict.BSPParams{Measured: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), R: 1e9, Networks: map[string]predict.BSPNetwork{
		predict.AllPairs: {G: 1e-9, L: 100e-6},
		"ethernet":       {G: 9e-9, L: 1.2e-3},
		"unix":           {G: 0.5e-9, L: 8e-6},
	}}
	want := " · BSP g, l (bench bsp 11-28): ethernet 9 ns/B 1.2ms, unix 0.5 ns/B 8µs"
	if got := bspNote(p); got != want {
		t.Errorf("note %q\nwant %q", got, want)
	}
	delete(p.Networks, "ethernet")
	delete(p.Networks, "unix")
	if got := bspNote(p); !strings.Contains(got, "all pairs 1 ns/B 100µs") {
		t.Errorf("all pairs only: %q", got)
	}
}
