package study

import (
	"errors"
	"os"
	"testing"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// FuzzParseMatrix feeds arbitrary text to the matrix parser, seeded with the
// repository's matrix files and the bad documents of TestParseMatrixBad: it
// must never panic, and must return either a valid matrix or a MatrixError.
func FuzzParseMatrix(f *testing.F) {
	for _, p := range []string{"quick.toml", "harness.toml", "harness-wan.toml"} {
		if b, err := os.ReadFile("../testdata/study/" + p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(goodMatrix))
	f.Add([]byte("sizes = [8\nnodes = [2]\n"))
	f.Add([]byte("sizes = [8]\nnodes = [2]\n[[grid]]\nclusters = [\"a\", \"a\"]\n"))
	f.Add([]byte("sizes = [1e9]\nnodes = [-1]\nrepeats = 99999999999\n[[grid]]\nclusters = [\"\"]\n"))
	f.Add([]byte("name = \x1b]0;t\x07\n"))
	f.Add([]byte("sizes = [8]\nschemes = [\"\\u009b31m\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMatrix("fuzz.toml", data)
		if err != nil {
			var me *MatrixError
			if !errors.As(err, &me) || !errors.Is(err, ErrMatrix) {
				t.Fatalf("error %v (%T) is not a *MatrixError", err, err)
			}
			if msg := err.Error(); tomlfile.QuoteMessage(msg) != msg {
				t.Fatalf("error carries control characters: %q", msg)
			}
			return
		}
		if len(m.Sizes) == 0 || len(m.Grids) == 0 || m.Repeats < 1 || m.RunCount() > MaxRuns {
			t.Fatalf("accepted an invalid matrix: %+v", m)
		}
	})
}
