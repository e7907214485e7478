package jobs

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckConsoleMemory checks that a job whose gathered solution does not
// fit the console's memory is refused up front, with the figures.
func TestCheckConsoleMemory(t *testing.T) {
	tests := map[string]struct {
		n     int
		avail uint64
		want  string // "" accepted
	}{
		"small":         {48, 1 << 30, ""},
		"n=4096 on 32G": {4096, 32 << 30, "needs 1.0 TiB"},
		"n=2048 on 8G":  {2048, 8 << 30, "8.0 GiB available"},
		"unknown":       {4096, 0, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := DefaultSpec()
			s.Obstacle.N = tc.n
			err := CheckConsoleMemory(s, tc.avail)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrMemory)):
				t.Errorf("error %v, want one with %q wrapping ErrMemory", err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), "n ≤ "):
				t.Errorf("error %v does not say which n fits", err)
			}
		})
	}
}
